/**
 * Attribution (restarts.md § Attribution): joins a transition with the agent's restart lines,
 * `lastState.terminated`, Pod Events and the `restartedAt` annotation, and builds the restart
 * record. Pure: identifiers, time and the pseudonym/redaction functions are parameters.
 *
 * The mapping table is applied strictly in its order of precedence, and `unknown` wins over a guess:
 * nobody is named as the sender of a signal unless the agent's own `restart-dispatch` said so.
 */
import { isPseudonym } from "../redact/index.ts";
import type { RestartLine, RestartPhase } from "./parse.ts";
import type {
  ActorKind,
  Confidence,
  DetectedBy,
  ObservedEvent,
  RestartInstance,
  RestartRecord,
  Transition,
  TriggerCategory,
} from "./types.ts";

export const OPERATOR_SOURCES = new Set([
  "slash-command",
  "control-ui",
  "cli",
  "gateway-tool",
  "restart-request",
]);
export const CONFIG_SOURCES = new Set(["config-write", "config-reload"]);
export const UPDATE_SOURCES = new Set(["update", "gateway-update"]);

/** Event reasons recorded as evidence; anything else from the cluster is not copied. */
export const EVIDENCE_REASONS = new Set([
  "Killing",
  "Unhealthy",
  "BackOff",
  "Evicted",
  "Preempting",
  "Preempted",
  "OOMKilling",
  "NodeNotReady",
  "TaintManagerEviction",
]);

/** Coarse channels an actor may be reported on (a closed list: nothing else from a log is copied). */
export const CHANNELS = new Set([
  "telegram",
  "whatsapp",
  "discord",
  "slack",
  "signal",
  "imessage",
  "matrix",
  "msteams",
  "googlechat",
  "mattermost",
  "line",
  "irc",
  "sms",
  "email",
  "webchat",
  "web",
  "control-ui",
  "cli",
]);

const MAX_MESSAGE = 512;
const MAX_REASON = 128;
const MAX_SOURCE = 64;

export interface AttributionDeps {
  /** The pipeline's keyed pseudonym, bound to the identity key and namespace; null when withheld. */
  pseudonymize(kind: "actor" | "session", value: string): string | null;
  /** The pipeline's redaction of free text. */
  redact(text: string): string;
}

export interface AttributionInput {
  namespaceId: string;
  agentId: string;
  deploymentId: string;
  transition: Transition;
  /**
   * Restart lines near the transition, in log order. Container-level transitions: the tail of the
   * previous instance's log (`previousLines`) and the head of the new one (`currentLines`).
   * In-process: the chain returned by `detectInProcess` as `currentLines`.
   */
  previousLines: readonly RestartLine[];
  currentLines: readonly RestartLine[];
  restartId: string;
  detectedAt: string;
  detectedBy: DetectedBy;
}

interface Chain {
  dispatch: RestartLine | null;
  signal: RestartLine | null;
  completed: RestartLine | null;
}

const pidsMatch = (a: RestartLine, b: RestartLine): boolean =>
  a.oldPid === null || b.oldPid === null || a.oldPid === b.oldPid;

/** The chain that ended the previous instance and the completion that started the next one. */
export function selectChain(
  t: Transition,
  previousLines: readonly RestartLine[],
  currentLines: readonly RestartLine[],
): Chain {
  let pending: readonly RestartLine[];
  let completed: RestartLine | null = null;
  if (t.scope === "in-process") {
    const last = currentLines.at(-1);
    completed = last?.phase === "completed" ? last : null;
    pending = completed ? currentLines.slice(0, -1) : currentLines;
  } else {
    // Lines after the previous instance's last completion belong to the chain that ended it.
    const lastDone = previousLines.findLastIndex((l) => l.phase === "completed");
    pending = previousLines.slice(lastDone + 1);
    // The new instance's boot line is its first line, if that is a completion.
    const first = currentLines[0];
    completed = first?.phase === "completed" ? first : null;
  }
  const signal = pending.findLast((l) => l.phase === "signal-received") ?? null;
  const signalAt = signal ? pending.lastIndexOf(signal) : pending.length;
  // A dispatch counts only before the signal and for the same process.
  const dispatch =
    pending.slice(0, signalAt).findLast((l) => l.phase === "dispatch" && (!signal || pidsMatch(l, signal))) ??
    (signal ? null : (pending.findLast((l) => l.phase === "dispatch") ?? null));
  return { dispatch, signal, completed };
}

const cut = (s: string, max: number): string => {
  const chars = [...s];
  return chars.length <= max ? s : chars.slice(0, max).join("");
};

/** Signal number from the termination: the reported one, else from a 128+n exit code. */
function terminationSignal(t: Transition): number | null {
  const term = t.termination;
  if (!term) return null;
  if (term.signal !== null && term.signal > 0) return term.signal;
  if (term.exitCode !== null && term.exitCode > 128 && term.exitCode <= 128 + 64) return term.exitCode - 128;
  return null;
}

function relevantEvents(t: Transition): { pod: ObservedEvent[]; container: ObservedEvent[] } {
  // Kubernetes does not see an in-process restart: its Events are no evidence for one.
  if (t.scope === "in-process") return { pod: [], container: [] };
  const all = t.scope === "pod-replacement" ? (t.previousPod?.events ?? []) : t.nextPod.events;
  // Pod-level Events and this container's; another container's Events say nothing about this one.
  const pod = all.filter((e) => e.container === null || e.container === t.container);
  // For a container restart, only Events of the previous instance's lifetime count.
  const since = t.scope === "container-restart" ? t.previous.startedAt : null;
  const sinceMs = since ? Date.parse(since) : Number.NaN;
  const inWindow = (e: ObservedEvent) =>
    Number.isNaN(sinceMs) || e.lastObservedAt === null || Date.parse(e.lastObservedAt) >= sinceMs;
  const kept = pod.filter(inWindow);
  return { pod: kept, container: kept.filter((e) => e.container === t.container) };
}

interface Verdict {
  category: TriggerCategory;
  confidence: Confidence;
  actor: ActorKind;
}

function decide(t: Transition, chain: Chain, events: ReturnType<typeof relevantEvents>): Verdict {
  const source = chain.dispatch?.source ?? null;
  if (source !== null) {
    if (OPERATOR_SOURCES.has(source)) {
      return {
        category: "operator-restart",
        confidence: "confirmed",
        actor: source === "gateway-tool" ? "agent" : "human-operator",
      };
    }
    if (CONFIG_SOURCES.has(source))
      return { category: "config-write", confidence: "confirmed", actor: "agent" };
    if (UPDATE_SOURCES.has(source))
      return { category: "gateway-update", confidence: "confirmed", actor: "agent" };
  }
  if (t.termination?.reason === "OOMKilled")
    return { category: "oom", confidence: "confirmed", actor: "kubernetes" };

  if (t.scope === "container-restart") {
    const unhealthy = events.container.filter(
      (e) => e.reason === "Unhealthy" && /liveness probe/i.test(e.message),
    );
    const killing = events.container.filter((e) => e.reason === "Killing");
    const ordered = unhealthy.some((u) =>
      killing.some((k) => !u.lastObservedAt || !k.lastObservedAt || u.lastObservedAt <= k.lastObservedAt),
    );
    if (ordered) return { category: "liveness-probe", confidence: "confirmed", actor: "kubernetes" };
  }

  const podReason =
    t.scope === "pod-replacement" ? (t.previousPod?.statusReason ?? null) : t.nextPod.statusReason;
  const reasons = new Set(events.pod.map((e) => e.reason));
  if (reasons.has("Evicted") || podReason === "Evicted") {
    return { category: "eviction", confidence: "confirmed", actor: "kubernetes" };
  }
  if (reasons.has("Preempting") || reasons.has("Preempted") || podReason === "Preempting") {
    return { category: "preemption", confidence: "confirmed", actor: "kubernetes" };
  }

  if (t.scope === "pod-replacement") {
    if (podReason === "NodeLost" || reasons.has("TaintManagerEviction")) {
      return { category: "node", confidence: "inferred", actor: "kubernetes" };
    }
    const before = t.previousPod?.restartedAt ?? null;
    const after = t.nextPod.restartedAt;
    if (after !== null && after !== before) {
      return { category: "rollout", confidence: "inferred", actor: "external-unknown" };
    }
    const oldGone =
      t.previousPod !== null && t.previousPod.phase !== "Failed" && t.previousPod.phase !== "Succeeded";
    if (oldGone && !chain.signal && !chain.dispatch) {
      return { category: "pod-deletion", confidence: "inferred", actor: "external-unknown" };
    }
  }

  const exit = t.termination?.exitCode ?? null;
  const crashed = exit !== null && exit !== 0 && terminationSignal(t) === null;
  if (crashed || events.container.some((e) => e.reason === "BackOff")) {
    return { category: "crash", confidence: "inferred", actor: "kubernetes" };
  }
  if (chain.signal && !chain.dispatch)
    return { category: "external", confidence: "confirmed", actor: "external-unknown" };
  return { category: "unknown", confidence: "unknown", actor: "external-unknown" };
}

function channelOf(line: RestartLine | null): string | null {
  if (!line) return null;
  if (line.channel !== null && CHANNELS.has(line.channel.toLowerCase())) return line.channel.toLowerCase();
  // Session keys name their channel as one `:`-separated token (e.g. `agent:main:telegram:dm:…`).
  for (const token of (line.sessionKey ?? "").toLowerCase().split(":")) if (CHANNELS.has(token)) return token;
  return null;
}

/**
 * A `source=`, `action=` or `method=` value is a short code (at most 64 characters, restarts.md's
 * cap); anything else from the log, or anything the redaction would change, is not copied.
 */
const SOURCE_CODE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
function sourceCode(source: string | null, deps: AttributionDeps): string | null {
  if (source === null || !SOURCE_CODE.test(source)) return null;
  const redacted = deps.redact(source);
  return redacted === source ? cut(source, MAX_SOURCE) : null;
}

/** The first value of `key` along the chain, dispatch first (it states the intent). */
const chainValue = (chain: Chain, key: "action" | "method"): string | null =>
  chain.dispatch?.[key] ?? chain.signal?.[key] ?? chain.completed?.[key] ?? null;

const lineTime = (l: RestartLine | null): string | null => (l ? (l.kubeletTime ?? l.agentTime) : null);

/** Builds the restart record of one transition. */
export function attribute(input: AttributionInput, deps: AttributionDeps): RestartRecord {
  const t = input.transition;
  const chain = selectChain(t, input.previousLines, input.currentLines);
  const events = relevantEvents(t);
  const verdict = decide(t, chain, events);

  const named =
    verdict.category === "operator-restart" ||
    verdict.category === "config-write" ||
    verdict.category === "gateway-update";
  const pseudonym = (kind: "actor" | "session", value: string | null): string | null => {
    if (!named || value === null) return null;
    const p = deps.pseudonymize(kind, value);
    // Fail closed: anything but a well-formed pseudonym is withheld, never passed through.
    return p !== null && isPseudonym(p) ? p : null;
  };

  const source = chain.dispatch?.source ?? (chain.signal ? "external" : (chain.completed?.source ?? null));
  const phases: RestartPhase[] = [];
  if (chain.dispatch) phases.push("dispatch");
  if (chain.signal) phases.push("signal-received");
  if (chain.completed) phases.push("completed");

  const term = t.termination;
  const restartedAtChanged =
    t.scope === "pod-replacement"
      ? t.nextPod.restartedAt !== null && t.nextPod.restartedAt !== (t.previousPod?.restartedAt ?? null)
      : false;

  const previous: RestartInstance = {
    ...t.previous,
    finishedAt: t.previous.finishedAt ?? (t.scope === "in-process" ? lineTime(chain.signal) : null),
    pid: chain.completed?.oldPid ?? chain.signal?.oldPid ?? chain.dispatch?.oldPid ?? null,
  };
  const next: RestartInstance = {
    ...t.next,
    finishedAt: null,
    pid: chain.completed?.newPid ?? null,
  };

  return {
    restartId: input.restartId,
    namespaceId: input.namespaceId,
    agentId: input.agentId,
    deploymentId: input.deploymentId,
    role: t.role,
    plane: t.plane,
    pod: t.next.pod,
    container: t.container,
    scope: t.scope,
    previous,
    next,
    termination: term
      ? {
          exitCode: term.exitCode,
          signal: term.signal,
          reason: term.reason === null ? null : cut(deps.redact(term.reason), MAX_REASON),
          message: term.message === null ? null : cut(deps.redact(term.message), MAX_MESSAGE),
        }
      : null,
    trigger: {
      category: verdict.category,
      source: sourceCode(source, deps),
      action: sourceCode(chainValue(chain, "action"), deps),
      method: sourceCode(chainValue(chain, "method"), deps),
      confidence: verdict.confidence,
    },
    actor: {
      kind: verdict.actor,
      actorRef: pseudonym("actor", chain.dispatch?.senderId ?? null),
      sessionRef: pseudonym("session", chain.dispatch?.sessionKey ?? null),
      channel: named ? channelOf(chain.dispatch) : null,
    },
    evidence: {
      phases,
      eventReasons: [
        ...new Set(events.pod.map((e) => e.reason).filter((r) => EVIDENCE_REASONS.has(r))),
      ].sort(),
      restartedAtAnnotation: restartedAtChanged,
    },
    detectedAt: input.detectedAt,
    detectedBy: input.detectedBy,
  };
}

/**
 * The stable time of a transition for the record's sort key: when the previous instance finished
 * (`lastState.terminated.finishedAt`), else the agent's completion line, else the new Pod's
 * creation, else the detection time. Stable sources make a second observation hit the same key.
 */
export function transitionTime(record: RestartRecord, t: Transition): string {
  return record.previous.finishedAt ?? record.next.startedAt ?? t.nextPod.createdAt ?? record.detectedAt;
}
