/**
 * Renders a restart record as the agent's three-phase lines (`occ agent restarts -o log`): one
 * line per phase seen, with the record's pseudonyms in place of identifiers. Pure. A record with no
 * phase (Kubernetes-only evidence) renders no line: nothing is invented.
 */
import { isRfc3339Utc } from "../rfc3339.ts";
import { formatRestartLine, type RestartLine, type RestartPhase } from "./parse.ts";
import type { RestartRecord } from "./types.ts";

/** `t` when it is a strict UTC time, else `fallback` when that is, else null. */
const at = (t: string | null, fallback: string): string | null =>
  t !== null && isRfc3339Utc(t) ? t : isRfc3339Utc(fallback) ? fallback : null;

/** Signal names by number (Linux), for the `signal=` of restart lines; shared with the CLI's `-o log`. */
export const SIGNAL_NAMES: Readonly<Record<number, string>> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  6: "SIGABRT",
  9: "SIGKILL",
  10: "SIGUSR1",
  12: "SIGUSR2",
  15: "SIGTERM",
};

export function restartRecordLines(record: RestartRecord): string[] {
  const base = {
    kubeletTime: null,
    source: record.trigger.source,
    senderId: record.actor.actorRef,
    sessionKey: record.actor.sessionRef,
    action: record.trigger.action ?? null,
    method: record.trigger.method ?? null,
    channel: record.actor.channel,
    dropped: [],
  };
  const line = (phase: RestartPhase): RestartLine => {
    const ended = at(record.previous.finishedAt, record.detectedAt);
    switch (phase) {
      case "dispatch":
        return {
          ...base,
          phase,
          agentTime: ended,
          signal: null,
          oldPid: record.previous.pid,
          newPid: null,
          firstStart: null,
        };
      case "signal-received":
        return {
          ...base,
          phase,
          agentTime: ended,
          signal: SIGNAL_NAMES[record.termination?.signal ?? 0] ?? null,
          oldPid: record.previous.pid,
          newPid: null,
          firstStart: null,
        };
      case "completed":
        return {
          ...base,
          phase,
          agentTime: at(record.next.startedAt, record.detectedAt),
          signal: null,
          // The pid-collision guard holds on output too: equal pids say nothing about the old process.
          oldPid: record.previous.pid === record.next.pid ? null : record.previous.pid,
          newPid: record.next.pid,
          firstStart: null,
        };
    }
  };
  return record.evidence.phases.map((p) => formatRestartLine(line(p)));
}
