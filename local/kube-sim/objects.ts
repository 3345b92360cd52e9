/**
 * Kubernetes JSON as the API server writes it: Pods, Events, lists and `Status` errors.
 * Object times are metav1.Time (whole seconds); Event `eventTime`/`series` are MicroTime.
 */
import { createHash } from "node:crypto";
import type { ContainerState, KubeTime } from "../scenario/schema.ts";
import { formatMetaTime, formatMicroTime, parseRfc3339 } from "../scenario/time.ts";
import type { SimContainer, SimEvent, SimPod } from "./world.ts";

export type Json = Record<string, unknown>;

const meta = (t: KubeTime): string => formatMetaTime(parseRfc3339(t) ?? 0n);
const micro = (t: KubeTime): string => formatMicroTime(parseRfc3339(t) ?? 0n);

const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "AlreadyExists",
  410: "Expired",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

export function statusReason(code: number): string {
  return REASONS[code] ?? (code >= 500 ? "InternalError" : "BadRequest");
}

export function status(code: number, message: string, details?: Json, reason = statusReason(code)): Json {
  const out: Json = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  };
  if (details) out.details = details;
  return out;
}

function hex(seed: string, length: number): string {
  return createHash("sha256").update(seed).digest("hex").slice(0, length);
}

function stateJson(state: ContainerState, containerId: string | null): Json {
  if ("running" in state) return { running: { startedAt: meta(state.running.startedAt) } };
  if ("waiting" in state) {
    const w: Json = { reason: state.waiting.reason };
    if (state.waiting.message !== null) w.message = state.waiting.message;
    return { waiting: w };
  }
  const t = state.terminated;
  const out: Json = { exitCode: t.exitCode };
  if (t.signal !== null) out.signal = t.signal;
  if (t.reason !== null) out.reason = t.reason;
  if (t.message !== null) out.message = t.message;
  out.startedAt = meta(t.startedAt);
  out.finishedAt = meta(t.finishedAt);
  if (containerId !== null) out.containerID = containerId;
  return { terminated: out };
}

function containerStatus(c: SimContainer): Json {
  const currentId = `containerd://${c.current.containerId}`;
  const previousId = c.previous ? `containerd://${c.previous.containerId}` : null;
  const lastTerminated = c.lastState !== null && "terminated" in c.lastState;
  // A waiting container reports the ID of the run that ended last, if any (like the kubelet).
  const statusId = "waiting" in c.state ? (lastTerminated ? previousId : null) : currentId;
  const out: Json = {
    name: c.name,
    state: stateJson(c.state, currentId),
    lastState: c.lastState ? stateJson(c.lastState, previousId) : {},
    ready: c.ready,
    restartCount: c.restartCount,
    image: c.image,
    imageID: `${c.image.split(":")[0]}@sha256:${hex(c.image, 64)}`,
    started: "running" in c.state,
  };
  if (statusId !== null) out.containerID = statusId;
  return out;
}

function containerSpec(c: SimContainer): Json {
  return {
    name: c.name,
    image: c.image,
    resources: {},
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy: "IfNotPresent",
  };
}

export function podJson(pod: SimPod, withKind: boolean): Json {
  const init = pod.containers.filter((c) => c.init);
  const regular = pod.containers.filter((c) => !c.init);
  const metadata: Json = {
    name: pod.name,
    namespace: pod.namespace,
    uid: pod.uid,
    resourceVersion: pod.resourceVersion,
    creationTimestamp: meta(pod.createdAt),
    labels: pod.labels,
  };
  if (Object.keys(pod.annotations).length > 0) metadata.annotations = pod.annotations;
  if (pod.deletionTimestamp !== null) {
    metadata.deletionTimestamp = meta(pod.deletionTimestamp);
    metadata.deletionGracePeriodSeconds = 30;
  }
  const spec: Json = {
    containers: regular.map(containerSpec),
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    dnsPolicy: "ClusterFirst",
    serviceAccountName: "default",
    schedulerName: "default-scheduler",
  };
  if (init.length > 0) spec.initContainers = init.map(containerSpec);
  if (pod.nodeName !== null) spec.nodeName = pod.nodeName;
  const status: Json = {
    phase: pod.phase,
    conditions: pod.conditions.map((c) => {
      const out: Json = { type: c.type, status: c.status, lastProbeTime: null };
      out.lastTransitionTime = meta(c.lastTransitionTime);
      if (c.reason !== null) out.reason = c.reason;
      if (c.message !== null) out.message = c.message;
      return out;
    }),
    qosClass: "BestEffort",
    startTime: meta(pod.createdAt),
  };
  if (pod.nodeName !== null) {
    const h = createHash("sha256").update(pod.uid).digest();
    status.hostIP = `10.0.0.${(h[0] ?? 0) % 250}`;
    status.podIP = `10.244.${(h[1] ?? 0) % 250}.${(h[2] ?? 0) % 250}`;
  }
  if (init.length > 0) status.initContainerStatuses = init.map(containerStatus);
  status.containerStatuses = regular.map(containerStatus);
  const body: Json = { metadata, spec, status };
  return withKind ? { kind: "Pod", apiVersion: "v1", ...body } : body;
}

export function eventJson(e: SimEvent, withKind: boolean): Json {
  const involved: Json = {
    kind: e.involvedObject.kind,
    namespace: e.namespace,
    name: e.involvedObject.name,
    uid: e.involvedObject.uid,
    apiVersion: "v1",
  };
  if (e.involvedObject.fieldPath !== null) involved.fieldPath = e.involvedObject.fieldPath;
  const source: Json = { component: e.source.component };
  if (e.source.host !== null) source.host = e.source.host;
  const body: Json = {
    metadata: {
      name: e.name,
      namespace: e.namespace,
      uid: e.uid,
      resourceVersion: e.resourceVersion,
      creationTimestamp: meta(e.creationTimestamp),
    },
    involvedObject: involved,
    reason: e.reason,
    message: e.message,
    source,
    firstTimestamp: e.firstTimestamp !== null ? meta(e.firstTimestamp) : null,
    lastTimestamp: e.lastTimestamp !== null ? meta(e.lastTimestamp) : null,
    count: e.count,
    type: e.type,
    eventTime: e.eventTime !== null ? micro(e.eventTime) : null,
    reportingComponent: "",
    reportingInstance: "",
  };
  if (e.series !== null) {
    body.series = { count: e.series.count, lastObservedTime: micro(e.series.lastObservedTime) };
  }
  return withKind ? { kind: "Event", apiVersion: "v1", ...body } : body;
}

export function listJson(
  kind: string,
  resourceVersion: number,
  items: Json[],
  cont: string | null,
  remaining: number | null,
): Json {
  const metadata: Json = { resourceVersion: String(resourceVersion) };
  if (cont !== null) metadata.continue = cont;
  if (remaining !== null) metadata.remainingItemCount = remaining;
  return { kind, apiVersion: "v1", metadata, items };
}
