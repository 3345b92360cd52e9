/**
 * Events in the scenario (core/v1 Event fields). The schema checks the document; `resolveEvent`
 * resolves its times against `now` and fills the defaults (an event with no time happened at `now`).
 */
import { z } from "zod";
import { count, type KubeTime, kubeTime, name, time } from "./fields.ts";
import { formatKubeletTime } from "./time.ts";

export const eventSchema = z.strictObject({
  name: name(253).optional(),
  involvedObject: z.strictObject({
    kind: z.string().min(1),
    name: z.string().min(1),
    uid: z.string().min(1),
    fieldPath: z.string().min(1).optional(),
  }),
  type: z.string().min(1),
  reason: z.string().min(1),
  message: z.string(),
  count: count.default(1),
  firstTimestamp: time.optional(),
  lastTimestamp: time.optional(),
  eventTime: time.optional(),
  series: z.strictObject({ count: count, lastObservedTime: time }).optional(),
  source: z.strictObject({ component: z.string().min(1), host: z.string().min(1).optional() }).optional(),
});
export type EventDoc = z.output<typeof eventSchema>;

export interface ScenarioEvent {
  /** Object name; default `{involvedObject.name}.{16 hex}` derived from the event's position. */
  name: string;
  involvedObject: { kind: string; name: string; uid: string; fieldPath: string | null };
  type: string;
  reason: string;
  message: string;
  count: number;
  firstTimestamp: KubeTime | null;
  lastTimestamp: KubeTime | null;
  eventTime: KubeTime | null;
  series: { count: number; lastObservedTime: KubeTime } | null;
  source: { component: string; host: string | null };
}

/** An event with its times resolved against `nowNs` and its defaults filled (`name` "" until named). */
export function resolveEvent(e: EventDoc, nowNs: bigint): ScenarioEvent {
  const at = (t: string | undefined) => (t === undefined ? undefined : kubeTime(t, nowNs));
  const firstTimestamp = at(e.firstTimestamp);
  const lastTimestamp = at(e.lastTimestamp);
  const eventTime = at(e.eventTime);
  const anyTime = firstTimestamp ?? lastTimestamp ?? eventTime;
  const first = firstTimestamp ?? lastTimestamp ?? (anyTime ? null : formatKubeletTime(nowNs));
  const last = lastTimestamp ?? firstTimestamp ?? (anyTime ? null : first);
  const scheduler = e.reason === "FailedScheduling" || e.reason === "Scheduled";
  return {
    name: e.name ?? "",
    involvedObject: {
      kind: e.involvedObject.kind,
      name: e.involvedObject.name,
      uid: e.involvedObject.uid,
      fieldPath: e.involvedObject.fieldPath ?? null,
    },
    type: e.type,
    reason: e.reason,
    message: e.message,
    count: e.count,
    firstTimestamp: first,
    lastTimestamp: last,
    eventTime: eventTime ?? null,
    series: e.series
      ? { count: e.series.count, lastObservedTime: kubeTime(e.series.lastObservedTime, nowNs) }
      : null,
    source: {
      component: e.source?.component ?? (scheduler ? "default-scheduler" : "kubelet"),
      host: e.source?.host ?? null,
    },
  };
}

/** A deterministic event name like the API server's `{object}.{hex}` names. */
export function eventName(objectName: string, seed: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < seed.length; i++) {
    const c = seed.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 16777619) >>> 0;
    h2 = Math.imul(h2 ^ c, 2246822519) >>> 0;
  }
  return `${objectName}.${h1.toString(16).padStart(8, "0")}${h2.toString(16).padStart(8, "0")}`;
}
