/**
 * Clusters in the scenario: their token, RBAC denials, faults and namespaces of Pods and Events.
 * `resolveCluster` is the pass after parsing: unique names, default Event names, times resolved.
 */
import { z } from "zod";
import { DNS_LABEL } from "../../lib/api/ids.ts";
import { eventName, eventSchema, resolveEvent, type ScenarioEvent } from "./event.ts";
import { id } from "./fields.ts";
import { formatPath, type ScenarioIssue } from "./issues.ts";
import { podSchema, resolvePod, type ScenarioPod } from "./pod.ts";

const namespace = z.strictObject({
  name: z.string().regex(DNS_LABEL, "must be a DNS label"),
  pods: z.array(podSchema).default([]),
  events: z.array(eventSchema).default([]),
});

const faults = z
  .strictObject({
    latencyMs: z.number().int().min(0).max(600_000).default(0),
    /** 0–1: share of requests answered with a 500 Status (seeded PRNG, deterministic). */
    failRate: z.number().min(0).max(1).default(0),
    /** Force this HTTP status (as a Status object) for every request; null: off. */
    status: z.number().int().min(400).max(599).nullable().default(null),
    /** Destroy every connection to this cluster. */
    unreachable: z.boolean().default(false),
    seed: z.number().int().default(1),
  })
  .default({ latencyMs: 0, failRate: 0, status: null, unreachable: false, seed: 1 });
export type ClusterFaults = z.output<typeof faults>;

const rbacDenial = z.strictObject({
  /** A namespace name, or `*` for every namespace. */
  namespace: z.string().min(1),
  /** `pods`, `pods/log`, `events`, … (resource[/subresource]). */
  resource: z.string().regex(/^[a-z0-9.-]+(\/[a-z0-9.-]+)?$/, "must be resource or resource/subresource"),
});
export type RbacDenial = z.output<typeof rbacDenial>;

export const clusterSchema = z.strictObject({
  id,
  /** Bearer token; absent: the simulator generates one (stable across reloads). */
  token: z
    .string()
    .regex(/^[\x21-\x7e]{1,512}$/, "must be 1-512 visible ASCII characters")
    .optional(),
  rbac: z.strictObject({ deny: z.array(rbacDenial).default([]) }).default({ deny: [] }),
  faults,
  namespaces: z.array(namespace),
});
type ClusterDoc = z.output<typeof clusterSchema>;

/** A namespace as parsed, its Pods and Events resolved. */
export type ScenarioNamespace = Omit<z.output<typeof namespace>, "pods" | "events"> & {
  pods: ScenarioPod[];
  events: ScenarioEvent[];
};

/** A cluster as parsed, its namespaces resolved. */
export type ScenarioCluster = Omit<ClusterDoc, "namespaces"> & { namespaces: ScenarioNamespace[] };

/** The cluster at `clusters[ci]` with its times resolved against `nowNs`; duplicates go to `issues`. */
export function resolveCluster(
  c: ClusterDoc,
  ci: number,
  nowNs: bigint,
  issues: ScenarioIssue[],
): ScenarioCluster {
  const seenNs = new Set<string>();
  const namespaces = c.namespaces.map((ns, ni): ScenarioNamespace => {
    const at = (...rest: PropertyKey[]) => formatPath(["clusters", ci, "namespaces", ni, ...rest]);
    if (seenNs.has(ns.name)) issues.push({ path: at("name"), message: `duplicate namespace "${ns.name}"` });
    seenNs.add(ns.name);
    const seenPods = new Set<string>();
    ns.pods.forEach((p, pi) => {
      if (seenPods.has(p.name))
        issues.push({ path: at("pods", pi, "name"), message: `duplicate pod "${p.name}"` });
      seenPods.add(p.name);
      const seenContainers = new Set<string>();
      p.containers.forEach((k, ki) => {
        if (seenContainers.has(k.name)) {
          issues.push({
            path: at("pods", pi, "containers", ki, "name"),
            message: `duplicate container "${k.name}"`,
          });
        }
        seenContainers.add(k.name);
      });
    });
    const events = ns.events.map((doc, ei) => {
      const e = resolveEvent(doc, nowNs);
      if (e.name === "") e.name = eventName(e.involvedObject.name, `${c.id}/${ns.name}/${ei}/${e.reason}`);
      return e;
    });
    return { name: ns.name, pods: ns.pods.map((p) => resolvePod(p, nowNs)), events };
  });
  const cluster: ScenarioCluster = { id: c.id, rbac: c.rbac, faults: c.faults, namespaces };
  if (c.token !== undefined) cluster.token = c.token;
  return cluster;
}
