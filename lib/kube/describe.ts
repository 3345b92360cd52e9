/**
 * Pure mapping from validated cluster objects to the runtime description (docs/api.md) and the Pod
 * observations restart attribution needs. No I/O; inputs are untrusted raw JSON checked here.
 */
import type { Plane, Role } from "../domain.ts";
import { type EventTextHints, redactEventText } from "../redact/index.ts";
import { utcSortKey } from "../rfc3339.ts";
import { parsePod } from "./pod-parse.ts";
import type {
  ContainerObservation,
  ContainerStateName,
  PodObservation,
  ReadablePod,
  RuntimeContainer,
  RuntimeEvent,
  RuntimePod,
  SourcePod,
  TerminationDetail,
} from "./types.ts";
import {
  InvalidClusterData,
  LIMITS,
  type RawContainerState,
  type RawContainerStatus,
  type RawEvent,
  type RawPod,
  type RawTerminated,
} from "./validate.ts";

export const LABEL_AGENT = "openclaw.dev/agent";
export const LABEL_REVISION = "openclaw.dev/revision";
export const LABEL_ROLE = "openclaw.dev/workload-role";
const ANNOTATION_RESTARTED_AT = "kubectl.kubernetes.io/restartedAt";
const ANNOTATION_DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container";

export interface PodSelector {
  namespace: string;
  agentId: string;
  deploymentId: string;
  role: Role;
}

export const labelsFor = (s: PodSelector): Record<string, string> => ({
  [LABEL_AGENT]: s.agentId,
  [LABEL_REVISION]: s.deploymentId,
  [LABEL_ROLE]: s.role,
});

export const labelSelector = (s: PodSelector): string =>
  Object.entries(labelsFor(s))
    .map(([k, v]) => `${k}=${v}`)
    .join(",");

/** Redacted cluster text, capped after redaction so a cut never exposes part of a secret. */
export function clusterText(value: string, max: number, hints: EventTextHints = {}): string {
  const redacted = redactEventText(value, hints);
  return redacted.length > max ? redacted.slice(0, max) : redacted;
}

const optionalText = (value: string | undefined, max: number, hints: EventTextHints): string | null =>
  value === undefined || value === "" ? null : clusterText(value, max, hints);

/** What Event and termination text must not reveal about this Pod: its node and images. */
export function hintsFor(pod: RawPod): EventTextHints {
  const images = [...(pod.spec.initContainers ?? []), ...pod.spec.containers]
    .map((c) => c.image)
    .filter((i): i is string => i !== undefined && i.length > 0);
  return {
    ...(pod.spec.nodeName ? { nodeNames: [pod.spec.nodeName] } : {}),
    ...(images.length > 0 ? { imageRefs: images } : {}),
  };
}

/**
 * Validates a Pod list: every item a valid Pod in the expected namespace with the expected labels
 * (anything else means the cluster is not answering the question asked); returns all of them,
 * including Pods being deleted.
 */
export function validatePods(items: readonly unknown[], selector: PodSelector): RawPod[] {
  const expected = labelsFor(selector);
  // One namespace cannot hold two Pods of one name, and UIDs are unique cluster-wide: a list that
  // repeats either is not describing real Pods, and reading "the" Pod of that name would be a guess.
  const names = new Set<string>();
  const uids = new Set<string>();
  return items.map((item, i) => {
    const pod = parsePod(item, `pods[${i}]`);
    if (pod.metadata.namespace !== selector.namespace) {
      throw new InvalidClusterData(`pods[${i}]: foreign namespace`);
    }
    for (const [k, v] of Object.entries(expected)) {
      if (pod.metadata.labels?.[k] !== v)
        throw new InvalidClusterData(`pods[${i}]: label ${k} does not match`);
    }
    if (names.has(pod.metadata.name)) throw new InvalidClusterData(`pods[${i}]: duplicate name`);
    if (uids.has(pod.metadata.uid)) throw new InvalidClusterData(`pods[${i}]: duplicate uid`);
    names.add(pod.metadata.name);
    uids.add(pod.metadata.uid);
    return pod;
  });
}

const byNewest = (a: RawPod, b: RawPod): number => {
  const ka = a.metadata.creationTimestamp ? utcSortKey(a.metadata.creationTimestamp) : "";
  const kb = b.metadata.creationTimestamp ? utcSortKey(b.metadata.creationTimestamp) : "";
  if (ka !== kb) return ka < kb ? 1 : -1;
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
};

/** Drops Pods being deleted and keeps the newest (ties by name), so a rollout's new Pods always show. */
export function currentPods(pods: readonly RawPod[]): RawPod[] {
  return pods
    .filter((p) => !p.metadata.deletionTimestamp)
    .sort(byNewest)
    .slice(0, LIMITS.podsKept);
}

interface DeclaredContainer {
  name: string;
  init: boolean;
  status: RawContainerStatus | undefined;
}

/** Init then regular containers in spec order, each with its status (matched by name). */
export function declaredContainers(pod: RawPod): DeclaredContainer[] {
  const init = pod.spec.initContainers ?? [];
  const regular = pod.spec.containers;
  if (init.length + regular.length > LIMITS.containers) throw new InvalidClusterData("too many containers");
  const names = new Set<string>();
  const statuses = (list: RawContainerStatus[] | undefined) => new Map((list ?? []).map((s) => [s.name, s]));
  const initStatus = statuses(pod.status?.initContainerStatuses);
  const regularStatus = statuses(pod.status?.containerStatuses);
  const out: DeclaredContainer[] = [];
  for (const [list, isInit, byName] of [
    [init, true, initStatus],
    [regular, false, regularStatus],
  ] as const) {
    for (const c of list) {
      if (names.has(c.name)) throw new InvalidClusterData("duplicate container name");
      names.add(c.name);
      out.push({ name: c.name, init: isInit, status: byName.get(c.name) });
    }
  }
  return out;
}

function stateOf(state: RawContainerState | undefined): {
  name: ContainerStateName;
  reason: string | undefined;
  startedAt: string | null;
} {
  if (state?.running)
    return { name: "running", reason: undefined, startedAt: state.running.startedAt ?? null };
  if (state?.terminated) {
    const t = state.terminated;
    return { name: "terminated", reason: t.reason, startedAt: t.startedAt ?? null };
  }
  if (state?.waiting) return { name: "waiting", reason: state.waiting.reason, startedAt: null };
  return { name: "unknown", reason: undefined, startedAt: null };
}

export function toContainers(pod: RawPod): RuntimeContainer[] {
  const hints = hintsFor(pod);
  return declaredContainers(pod).map(({ name, init, status }) => {
    const state = stateOf(status?.state);
    const last = status?.lastState?.terminated;
    return {
      name,
      init,
      state: state.name,
      reason: optionalText(state.reason, LIMITS.reasonChars, hints),
      ready: status?.ready === true,
      restartCount: status?.restartCount ?? 0,
      startedAt: state.startedAt,
      lastTermination: last
        ? {
            reason: optionalText(last.reason, LIMITS.reasonChars, hints),
            exitCode: last.exitCode,
            signal: last.signal ?? null,
            finishedAt: last.finishedAt ?? null,
          }
        : null,
    };
  });
}

const isReady = (pod: RawPod): boolean =>
  pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

export function toRuntimePod(role: Role, plane: Plane, pod: RawPod, events: RuntimeEvent[]): RuntimePod {
  return {
    role,
    cluster: plane,
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    phase: pod.status?.phase ?? "Unknown",
    ready: isReady(pod),
    createdAt: pod.metadata.creationTimestamp ?? null,
    containers: toContainers(pod),
    events,
  };
}

/** The container a source reads by default: the declared default container, else the first regular one. */
export function defaultContainer(pod: RawPod): string {
  const named = pod.metadata.annotations?.[ANNOTATION_DEFAULT_CONTAINER];
  const regular = pod.spec.containers;
  if (named !== undefined && regular.some((c) => c.name === named)) return named;
  return (regular[0] as { name: string }).name;
}

export function toSourcePod(pod: RawPod): SourcePod {
  const container = defaultContainer(pod);
  const status = pod.status?.containerStatuses?.find((s) => s.name === container);
  return {
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    container,
    restartCount: status?.restartCount ?? 0,
  };
}

/** What a log read may target in this Pod: every declared container, and the source's main one. */
export function toReadablePod(pod: RawPod): ReadablePod {
  return {
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    main: defaultContainer(pod),
    containers: declaredContainers(pod).map(({ name, init, status }) => ({
      name,
      init,
      restartCount: status?.restartCount ?? 0,
    })),
  };
}

const FIELD_PATH = /^spec\.(?:containers|initContainers)\{([a-z0-9-]{1,63})\}$/;

/** The container an Event is about, when its fieldPath names a declared one. */
export function eventContainer(fieldPath: string | undefined, declared: ReadonlySet<string>): string | null {
  if (fieldPath === undefined) return null;
  const m = FIELD_PATH.exec(fieldPath);
  const name = m?.[1];
  return name !== undefined && declared.has(name) ? name : null;
}

/** The time an Event was last seen: series, then last, event and first timestamps. */
export const eventObservedAt = (e: RawEvent): string | null =>
  e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? null;

/** The scheduler's FailedScheduling from the PVC update race is noise once the Pod has a node. */
export function isPvcRaceNoise(e: RawEvent, hasNode: boolean): boolean {
  if (!hasNode || e.reason !== "FailedScheduling") return false;
  const m = (e.message ?? "").toLowerCase();
  return m.includes("persistentvolumeclaim") && m.includes("the object has been modified");
}

interface KeyedEvent {
  key: string;
  name: string;
  event: RawEvent;
}

/**
 * Keeps the newest Events of one Pod. Called once per page with the running selection, so memory
 * stays bounded by `LIMITS.eventsKept` whatever the number of pages.
 */
export function mergeEvents(kept: KeyedEvent[], page: readonly RawEvent[], podUid: string, hasNode: boolean) {
  const next = kept.slice();
  for (const event of page) {
    const o = event.involvedObject;
    if (o.kind !== "Pod" || o.uid !== podUid) continue;
    if (event.type !== "Normal" && event.type !== "Warning") continue;
    if (isPvcRaceNoise(event, hasNode)) continue;
    const at = eventObservedAt(event);
    next.push({ key: at ? utcSortKey(at) : "", name: event.metadata?.name ?? "", event });
  }
  next.sort((a, b) =>
    a.key !== b.key ? (a.key < b.key ? 1 : -1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return next.slice(0, LIMITS.eventsKept);
}

export type { KeyedEvent };

export function toRuntimeEvents(
  kept: readonly KeyedEvent[],
  declared: ReadonlySet<string>,
  hints: EventTextHints = {},
): RuntimeEvent[] {
  return kept.map(({ event }) => ({
    type: event.type as "Normal" | "Warning",
    container: eventContainer(event.involvedObject.fieldPath, declared),
    reason: clusterText(event.reason ?? "", LIMITS.reasonChars, hints),
    message: clusterText(event.message ?? "", LIMITS.eventMessageChars, hints),
    count: Math.max(1, event.series?.count ?? event.count ?? 1),
    lastObservedAt: eventObservedAt(event),
  }));
}

const STATUS_REASON = /^[A-Za-z][A-Za-z0-9]{0,63}$/;
const RESTARTED_AT = /^[0-9A-Za-z:.+-]{1,64}$/;

function termination(t: RawTerminated | undefined, hints: EventTextHints): TerminationDetail | null {
  if (!t) return null;
  return {
    reason: optionalText(t.reason, LIMITS.reasonChars, hints),
    exitCode: t.exitCode,
    signal: t.signal ?? null,
    startedAt: t.startedAt ?? null,
    finishedAt: t.finishedAt ?? null,
    message: optionalText(t.message, LIMITS.terminationMessageChars, hints),
  };
}

export function toObservation(role: Role, plane: Plane, clusterId: string, pod: RawPod): PodObservation {
  const reason = pod.status?.reason;
  if (reason !== undefined && !STATUS_REASON.test(reason))
    throw new InvalidClusterData("status.reason malformed");
  const restartedAt = pod.metadata.annotations?.[ANNOTATION_RESTARTED_AT];
  if (restartedAt !== undefined && !RESTARTED_AT.test(restartedAt)) {
    throw new InvalidClusterData("restartedAt annotation malformed");
  }
  const hints = hintsFor(pod);
  const containers: ContainerObservation[] = declaredContainers(pod).map(({ name, init, status }) => {
    const state = stateOf(status?.state);
    return {
      name,
      init,
      restartCount: status?.restartCount ?? 0,
      state: state.name,
      startedAt: state.startedAt,
      terminated: termination(status?.state?.terminated, hints),
      lastTerminated: termination(status?.lastState?.terminated, hints),
    };
  });
  return {
    role,
    plane,
    clusterId,
    namespace: pod.metadata.namespace,
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    createdAt: pod.metadata.creationTimestamp ?? null,
    nodeName: pod.spec.nodeName ?? null,
    statusReason: reason ?? null,
    restartedAt: restartedAt ?? null,
    containers,
  };
}

export const CONTAINER_RETENTION =
  "Kubernetes keeps the logs of the current and the previous instance of each container while the Pod exists; " +
  "older instances and deleted Pods are gone, and Events are kept for about an hour.";
export const SANDBOX_RETENTION = "The sandbox driver keeps its most recent 2000 lines in a ring buffer.";
