/**
 * Validation of what a cluster returns (docs/kube.md § Validation, docs/quality.md R9). Everything from a
 * cluster is hostile: names, UIDs, counts, sizes and times are checked before use; a value outside
 * the rules makes the whole read unavailable rather than being repaired or normalized.
 * Only the fields the driver reads are declared; unknown fields are ignored (real objects carry many).
 */

import { z } from "zod";
import { DNS_LABEL, isDnsSubdomain } from "../api/ids.ts";
import { isRfc3339Utc } from "../rfc3339.ts";

export const LIMITS = {
  /** Pods a role may list (the list is requested with this `limit`). */
  podsListed: 16,
  /** Pods of a role kept in a description (newest first). */
  podsKept: 8,
  containers: 16,
  eventsKept: 100,
  eventsPageLimit: 100,
  /** Pages of Events followed before the list is declared endless. */
  eventPagesMax: 20,
  labels: 64,
  /** Raw free text (messages) longer than this is refused outright. */
  rawTextChars: 64 * 1024,
  /** Raw short strings (reasons, kinds, field paths) longer than this are refused. */
  rawTokenChars: 1024,
  eventMessageChars: 1024,
  reasonChars: 128,
  terminationMessageChars: 512,
  continueTokenChars: 4096,
} as const;

/** DNS-1123 label and subdomain, as the contract defines them (lib/api/ids.ts). */
export const isDnsLabel = (value: string): boolean => DNS_LABEL.test(value);
export { isDnsSubdomain };

const UID = /^[A-Za-z0-9-]{1,64}$/;
export const isUid = (value: string): boolean => UID.test(value);

const dnsLabel = z.string().max(63).refine(isDnsLabel, "not a DNS label");
const dnsSubdomain = z.string().max(253).refine(isDnsSubdomain, "not a DNS subdomain");
const uid = z.string().max(64).regex(UID, "not a UID");
const time = z.string().max(30).refine(isRfc3339Utc, "not an RFC 3339 UTC time");
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const int32 = z
  .number()
  .int()
  .min(-(2 ** 31))
  .max(2 ** 31 - 1);
const token = z.string().max(LIMITS.rawTokenChars);
const text = z.string().max(LIMITS.rawTextChars);
const stringMap = z.record(z.string().max(317), z.string());

const terminatedState = z.object({
  exitCode: int32,
  signal: count.optional(),
  reason: token.optional(),
  message: text.optional(),
  startedAt: time.nullish(),
  finishedAt: time.nullish(),
});
export type RawTerminated = z.infer<typeof terminatedState>;

const containerState = z.object({
  waiting: z.object({ reason: token.optional(), message: text.optional() }).optional(),
  running: z.object({ startedAt: time.nullish() }).optional(),
  terminated: terminatedState.optional(),
});
export type RawContainerState = z.infer<typeof containerState>;

const containerStatus = z.object({
  name: dnsLabel,
  ready: z.boolean().optional(),
  restartCount: count.optional(),
  state: containerState.optional(),
  lastState: containerState.optional(),
});
export type RawContainerStatus = z.infer<typeof containerStatus>;

const containerSpec = z.object({ name: dnsLabel, image: z.string().max(LIMITS.rawTokenChars).optional() });

export const rawPod = z.object({
  metadata: z.object({
    name: dnsSubdomain,
    namespace: dnsLabel,
    uid,
    creationTimestamp: time.nullish(),
    deletionTimestamp: time.nullish(),
    labels: stringMap.refine((m) => Object.keys(m).length <= LIMITS.labels, "too many labels").optional(),
    annotations: stringMap.optional(),
  }),
  spec: z.object({
    nodeName: dnsSubdomain.optional(),
    containers: z.array(containerSpec).min(1).max(LIMITS.containers),
    initContainers: z.array(containerSpec).max(LIMITS.containers).optional(),
  }),
  status: z
    .object({
      phase: z.enum(["Pending", "Running", "Succeeded", "Failed", "Unknown"]).optional(),
      reason: token.optional(),
      conditions: z
        .array(z.object({ type: token, status: z.enum(["True", "False", "Unknown"]) }))
        .max(64)
        .optional(),
      containerStatuses: z.array(containerStatus).max(LIMITS.containers).optional(),
      initContainerStatuses: z.array(containerStatus).max(LIMITS.containers).optional(),
    })
    .optional(),
});
export type RawPod = z.infer<typeof rawPod>;

const listMeta = z
  .object({
    continue: z.string().max(LIMITS.continueTokenChars).optional(),
  })
  .optional();

export const rawPodList = z.object({
  metadata: listMeta,
  // Bounded so a hostile list cannot make us validate thousands of objects.
  items: z.array(z.unknown()).max(LIMITS.podsListed),
});

const eventTime = time.nullish();
export const rawEvent = z.object({
  metadata: z.object({ name: token.optional(), namespace: dnsLabel.optional() }).optional(),
  involvedObject: z.object({
    kind: token.optional(),
    name: token.optional(),
    namespace: token.optional(),
    uid: token.optional(),
    fieldPath: token.optional(),
  }),
  reason: token.optional(),
  message: text.optional(),
  type: token.optional(),
  count: count.nullish(),
  firstTimestamp: eventTime,
  lastTimestamp: eventTime,
  eventTime,
  series: z.object({ count: count.nullish(), lastObservedTime: eventTime }).nullish(),
});
export type RawEvent = z.infer<typeof rawEvent>;

export const rawEventList = z.object({
  metadata: listMeta,
  items: z.array(rawEvent).max(LIMITS.eventsPageLimit),
});

export const rawAccessReview = z.object({
  status: z.object({ allowed: z.boolean(), denied: z.boolean().optional() }),
});

export const rawVersion = z.object({ gitVersion: z.string().max(128) });

/** Thrown for any cluster object outside the rules; the message names the path, never the value. */
export class InvalidClusterData extends Error {
  override name = "InvalidClusterData";
}

export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue ? issue.path.map(String).join(".") : "";
    throw new InvalidClusterData(`${what}: invalid at ${path || "(root)"}: ${issue?.message ?? "invalid"}`);
  }
  return result.data;
}
