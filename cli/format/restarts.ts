/**
 * Restart records (restarts.md § Attribution) as a table, and as the agent's three-phase line
 * vocabulary (`-o log`): one line per phase seen, with the record's pseudonyms (`actorRef`,
 * `sessionRef`, shortened as in log lines) where the agent wrote raw `sender_id`/`session_key`, and the record's `action` and
 * `method` where the vocabulary has them. The record does not keep `first_start`, so it is left
 * out rather than invented; a completion whose old and new pid are equal drops `old_pid` (the
 * pid-collision guard holds on output too).
 */

import { RESTART_PHASES } from "../../lib/restarts/parse.ts";
import { SIGNAL_NAMES } from "../../lib/restarts/signals.ts";
import { escapeText } from "../escape.ts";
import { isObject } from "../http.ts";
import { type Cell, renderTable } from "../table.ts";
import { shortenPseudonyms } from "./logs.ts";
import { timeCell } from "./time.ts";

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** When the old instance ended, else when the transition was detected. */
export function restartTime(r: Obj): string | undefined {
  return timeCell(obj(r.previous).finishedAt) ?? timeCell(r.detectedAt);
}

function termination(r: Obj): Cell {
  const t = obj(r.termination);
  const parts: string[] = [];
  if (str(t.reason) !== undefined) parts.push(str(t.reason)!);
  if (num(t.exitCode) !== undefined) parts.push(`exit=${num(t.exitCode)}`);
  if (num(t.signal) !== undefined) parts.push(`signal=${num(t.signal)}`);
  return parts.join(" ");
}

export function restartsTable(records: Obj[]): string[] {
  const rows = records.map((r): Cell[] => {
    const trigger = obj(r.trigger);
    const actor = obj(r.actor);
    const channel = str(actor.channel);
    return [
      restartTime(r),
      str(r.pod),
      str(r.container),
      str(r.scope),
      str(trigger.category),
      str(trigger.confidence),
      channel === undefined ? str(actor.kind) : `${str(actor.kind) ?? "?"} (${channel})`,
      termination(r),
    ];
  });
  return renderTable(
    ["TIME", "POD", "CONTAINER", "SCOPE", "CATEGORY", "CONFIDENCE", "ACTOR", "EXIT/SIGNAL/REASON"],
    rows,
  );
}

function value(v: string | number): string {
  const s = String(v);
  return /^[^\s"=\\]+$/.test(s) ? s : JSON.stringify(s);
}

function fieldsText(pairs: [string, string | number | undefined][]): string {
  return pairs
    .filter((p): p is [string, string | number] => p[1] !== undefined)
    .map(([k, v]) => `${k}=${value(v)}`)
    .join(" ");
}

/** The three-phase lines of one record, oldest phase first; empty when the agent wrote none. */
export function restartLogLines(r: Obj): string[] {
  const evidence = obj(r.evidence);
  const seen = new Set(Array.isArray(evidence.phases) ? evidence.phases : []);
  const previous = obj(r.previous);
  const next = obj(r.next);
  const trigger = obj(r.trigger);
  const actor = obj(r.actor);
  const common: [string, string | number | undefined][] = [
    ["source", str(trigger.source)],
    ["sender_id", str(actor.actorRef)],
    ["session_key", str(actor.sessionRef)],
  ];
  const action: [string, string | number | undefined] = ["action", str(trigger.action)];
  const method: [string, string | number | undefined] = ["method", str(trigger.method)];
  const oldPid = num(previous.pid);
  const newPid = num(next.pid);
  const where: [string, string | number | undefined][] = [
    ["pod", str(r.pod)],
    ["container", str(r.container)],
  ];
  const signal = num(obj(r.termination).signal);
  const ended = timeCell(previous.finishedAt) ?? timeCell(r.detectedAt) ?? "-";
  const started = timeCell(next.startedAt) ?? timeCell(r.detectedAt) ?? "-";
  const lines: string[] = [];
  for (const phase of RESTART_PHASES) {
    if (!seen.has(phase)) continue;
    let head: string;
    let fields: [string, string | number | undefined][];
    if (phase === "dispatch") {
      head = `${ended} gateway restart-dispatch`;
      fields = [...common, action, method, ["old_pid", oldPid]];
    } else if (phase === "signal-received") {
      head = `${ended} gateway restart-signal-received`;
      const name = signal === undefined ? undefined : (SIGNAL_NAMES[signal] ?? String(signal));
      fields = [["signal", name], ...common, action, ["old_pid", oldPid]];
    } else {
      head = `${started} gateway restart-completed`;
      fields = [
        ["signal", "boot"],
        ...common,
        action,
        ["old_pid", oldPid === newPid ? undefined : oldPid],
        ["new_pid", newPid],
      ];
    }
    lines.push(escapeText(shortenPseudonyms(`${head} ${fieldsText([...fields, ...where])}`)));
  }
  return lines;
}

/** All records' lines, oldest record first (the API lists newest first). */
export function restartLog(records: Obj[]): { lines: string[]; withoutPhases: number } {
  const lines: string[] = [];
  let withoutPhases = 0;
  for (const r of [...records].reverse()) {
    const own = restartLogLines(r);
    if (own.length === 0) withoutPhases++;
    lines.push(...own);
  }
  return { lines, withoutPhases };
}
