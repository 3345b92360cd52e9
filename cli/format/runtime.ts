/**
 * The runtime description (docs/api.md § Runtime description) and the deployment list as text tables.
 * Input is untrusted JSON: every value is read defensively and escaped by the table renderer.
 */
import { escapeText } from "../escape.ts";
import { isObject } from "../http.ts";
import { type Cell, renderTable } from "../table.ts";
import { restartsTable } from "./restarts.ts";
import { timeCell } from "./time.ts";

type Obj = Record<string, unknown>;

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

function containerState(c: Obj): string {
  const state = str(c.state) ?? "unknown";
  const reason = str(c.reason);
  return reason === undefined ? state : `${state} (${reason})`;
}

function lastTermination(c: Obj): Cell {
  const t = c.lastTermination;
  if (!isObject(t)) return undefined;
  const parts: string[] = [];
  if (str(t.reason) !== undefined) parts.push(str(t.reason)!);
  if (num(t.exitCode) !== undefined) parts.push(`exit=${num(t.exitCode)}`);
  if (num(t.signal) !== undefined) parts.push(`signal=${num(t.signal)}`);
  if (timeCell(t.finishedAt) !== undefined) parts.push(`at ${timeCell(t.finishedAt)}`);
  return parts.join(" ");
}

export function podsTable(pods: Obj[]): string[] {
  const rows: Cell[][] = [];
  for (const pod of pods) {
    const containers = objects(pod.containers);
    const podCells = [str(pod.role), str(pod.name), str(pod.cluster), str(pod.phase)];
    if (containers.length === 0) {
      rows.push([...podCells, undefined, pod.ready === true ? "yes" : "no", undefined, undefined, undefined]);
      continue;
    }
    for (const c of containers) {
      rows.push([
        ...podCells,
        c.init === true ? `${str(c.name) ?? "?"} (init)` : str(c.name),
        // Kubernetes never marks an init container ready: its STATE says whether it completed.
        c.init === true ? undefined : c.ready === true ? "yes" : "no",
        containerState(c),
        num(c.restartCount),
        lastTermination(c),
      ]);
    }
  }
  return renderTable(
    ["ROLE", "POD", "CLUSTER", "PHASE", "CONTAINER", "READY", "STATE", "RESTARTS", "LAST TERMINATION"],
    rows,
  );
}

export function sourcesTable(sources: Obj[]): string[] {
  const rows = sources.map((s): Cell[] => {
    const pods = objects(s.pods)
      .map((p) => `${str(p.name) ?? "?"}/${str(p.container) ?? "?"}`)
      .join(", ");
    const available =
      s.available === true ? "yes" : `no${str(s.unavailableCode) ? ` (${s.unavailableCode})` : ""}`;
    return [str(s.id), str(s.kind), available, pods, str(s.retention)];
  });
  return renderTable(["SOURCE", "KIND", "AVAILABLE", "PODS", "RETENTION"], rows);
}

export function eventsTable(pods: Obj[]): string[] {
  const rows: Cell[][] = [];
  for (const pod of pods)
    for (const e of objects(pod.events))
      rows.push([
        str(pod.name),
        str(e.type),
        str(e.reason),
        str(e.container),
        num(e.count),
        timeCell(e.lastObservedAt),
        str(e.message),
      ]);
  return renderTable(["POD", "TYPE", "REASON", "CONTAINER", "COUNT", "LAST SEEN", "MESSAGE"], rows);
}

/** The whole `runtime` text view: a heading, then Pods, Sources, Events and recent restarts. */
export function formatRuntime(data: unknown): string[] {
  const d = isObject(data) ? data : {};
  const pods = objects(d.pods);
  const sources = objects(d.sources);
  const restarts = objects(d.restarts);
  const out = [
    escapeText(`Deployment ${str(d.deploymentId) ?? "?"} · observed ${timeCell(d.observedAt) ?? "?"}`),
    "",
    "Pods",
  ];
  out.push(...(pods.length === 0 ? ["  (no Pods)"] : podsTable(pods)));
  out.push("", "Sources");
  out.push(...(sources.length === 0 ? ["  (no sources)"] : sourcesTable(sources)));
  out.push("", "Events");
  const events = pods.some((p) => objects(p.events).length > 0);
  out.push(...(events ? eventsTable(pods) : ["  (no Events)"]));
  if (restarts.length > 0) out.push("", "Restarts", ...restartsTable(restarts));
  return out;
}

/** The deployment list: `data` is the array (docs/api.md); `{deployments: [...]}` is accepted too. */
export function deploymentList(data: unknown): Obj[] {
  return objects(isObject(data) ? data.deployments : data);
}

export function formatDeployments(data: unknown): string[] {
  const list = deploymentList(data);
  if (list.length === 0) return ["(no deployments)"];
  return renderTable(
    ["DEPLOYMENT", "REVISION", "CREATED", "ACTIVE"],
    list.map((d) => [
      str(d.deploymentId),
      num(d.revision),
      timeCell(d.createdAt),
      d.active === true ? "yes" : "",
    ]),
  );
}
