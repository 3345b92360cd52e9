/**
 * Parser for the agent's three-phase restart audit lines (docs/restarts.md § The agent's own three-phase
 * lines). Pure: no I/O, no clock. Input is hostile container output, so every value is checked
 * against a cap and a character class; the parser never throws.
 *
 *   [kubelet-time ] [[ISO-time]] gateway restart-dispatch        source=… sender_id=… session_key=… action=… method=… old_pid=…
 *   [kubelet-time ] [[ISO-time]] gateway restart-signal-received signal=SIGTERM source=… … old_pid=…
 *   [kubelet-time ] [[ISO-time]] gateway restart-completed       signal=boot source=… … old_pid=… new_pid=… first_start=true|false
 *
 * Decisions (documented here because the design leaves them open):
 * - A value over its cap, with a control or format character, a malformed pid or boolean, or a key
 *   given twice (ambiguous: a later copy could be injected) drops that *field*, not the line: the
 *   phase itself is still evidence. Dropped field names are listed in `dropped`.
 * - A line over 1024 bytes (UTF-8, the whole line as read, prefixes included) is rejected.
 * - Values are kept verbatim (no truncation): a cut identifier would pseudonymize to a different,
 *   misleading reference.
 */

import { isRfc3339Utc } from "../rfc3339.ts";

export type RestartPhase = "dispatch" | "signal-received" | "completed";

export const RESTART_PHASES: readonly RestartPhase[] = ["dispatch", "signal-received", "completed"];

/** Line cap in UTF-8 bytes. */
export const MAX_RESTART_LINE_BYTES = 1024;

/** Per-field caps in characters (docs/restarts.md). */
export const FIELD_CAPS = {
  source: 64,
  action: 64,
  method: 64,
  signal: 64,
  channel: 64,
  sender_id: 128,
  session_key: 256,
} as const;

/** Each text field's RestartLine name by wire key, in the order `formatRestartLine` writes them. */
const TEXT_FIELDS = {
  signal: "signal",
  source: "source",
  sender_id: "senderId",
  session_key: "sessionKey",
  action: "action",
  method: "method",
  channel: "channel",
} as const satisfies Record<keyof typeof FIELD_CAPS, keyof RestartLine>;

export interface RestartLine {
  phase: RestartPhase;
  /** The kubelet's timestamp prefix (as read with `timestamps=true`), RFC 3339 UTC; null when absent. */
  kubeletTime: string | null;
  /** The agent's own bracketed ISO time; null when absent. */
  agentTime: string | null;
  source: string | null;
  senderId: string | null;
  sessionKey: string | null;
  action: string | null;
  method: string | null;
  signal: string | null;
  /** Optional coarse channel hint (not in the base vocabulary; validated later against a closed list). */
  channel: string | null;
  oldPid: number | null;
  newPid: number | null;
  firstStart: boolean | null;
  /** Known fields that were present but refused (over cap, malformed, duplicated). */
  dropped: string[];
}

const PHASE_RE = /^gateway[ \t]+restart-(dispatch|signal-received|completed)(?=[ \t]|$)/;
// Control, format (bidi, zero-width) and separator characters are refused inside values.
const UNSAFE_VALUE = /[\p{Cc}\p{Cf}\p{Z}]/u;
const PID_RE = /^[1-9][0-9]{0,9}$/;
const MAX_PID = 4_194_304; // Linux pid_max upper bound

const encoder = new TextEncoder();

/** Parses one line; null when it is not a restart line (or is rejected as a whole). */
export function parseRestartLine(line: string): RestartLine | null {
  if (typeof line !== "string") return null;
  let rest = line.replace(/\r?\n$/, "");
  if (rest.length > MAX_RESTART_LINE_BYTES || encoder.encode(rest).length > MAX_RESTART_LINE_BYTES)
    return null;

  let kubeletTime: string | null = null;
  let agentTime: string | null = null;
  const first = /^(\S+) /.exec(rest);
  if (first?.[1] !== undefined && isRfc3339Utc(first[1])) {
    kubeletTime = first[1];
    rest = rest.slice(first[0].length);
  }
  rest = rest.replace(/^[ \t]+/, "");
  const bracket = /^\[([^\]\s]{1,40})\][ \t]*/.exec(rest);
  if (bracket?.[1] !== undefined && isRfc3339Utc(bracket[1])) {
    agentTime = bracket[1];
    rest = rest.slice(bracket[0].length);
  }

  const head = PHASE_RE.exec(rest);
  if (!head) return null;
  const phase = head[1] as RestartPhase;
  const parsed: RestartLine = {
    phase,
    kubeletTime,
    agentTime,
    source: null,
    senderId: null,
    sessionKey: null,
    action: null,
    method: null,
    signal: null,
    channel: null,
    oldPid: null,
    newPid: null,
    firstStart: null,
    dropped: [],
  };

  const seen = new Map<string, string>();
  const duplicated = new Set<string>();
  for (const token of rest.slice(head[0].length).split(/[ \t]+/)) {
    const eq = token.indexOf("=");
    if (eq <= 0) continue; // not a field: ignored like unknown fields
    const key = token.slice(0, eq);
    if (!KNOWN_KEYS.has(key)) continue;
    if (seen.has(key)) duplicated.add(key);
    else seen.set(key, token.slice(eq + 1));
  }

  for (const [key, value] of seen) {
    if (duplicated.has(key) || !assign(parsed, key, value)) parsed.dropped.push(key);
  }
  return parsed;
}

const KNOWN_KEYS = new Set([...Object.keys(FIELD_CAPS), "old_pid", "new_pid", "first_start"]);

function assign(line: RestartLine, key: string, value: string): boolean {
  switch (key) {
    case "old_pid":
    case "new_pid": {
      if (!PID_RE.test(value)) return false;
      const pid = Number(value);
      if (pid > MAX_PID) return false;
      if (key === "old_pid") line.oldPid = pid;
      else line.newPid = pid;
      return true;
    }
    case "first_start":
      if (value !== "true" && value !== "false") return false;
      line.firstStart = value === "true";
      return true;
    default: {
      const cap = FIELD_CAPS[key as keyof typeof FIELD_CAPS];
      if (value.length === 0 || [...value].length > cap || UNSAFE_VALUE.test(value)) return false;
      line[TEXT_FIELDS[key as keyof typeof TEXT_FIELDS]] = value;
      return true;
    }
  }
}

/**
 * The pid-collision guard: a `restart-completed` whose `old_pid` equals `new_pid` drops `old_pid`
 * (in a fresh container both are typically 1, which says nothing about the old process).
 */
export function applyPidGuard(line: RestartLine): RestartLine {
  if (line.phase === "completed" && line.oldPid !== null && line.oldPid === line.newPid) {
    return { ...line, oldPid: null };
  }
  return line;
}

/** Parses and applies the pid-collision guard: what callers normally want. */
export function readRestartLine(line: string): RestartLine | null {
  const parsed = parseRestartLine(line);
  return parsed ? applyPidGuard(parsed) : null;
}

/** Every restart line of a log body, in order (other lines are skipped). */
export function readRestartLines(text: string): RestartLine[] {
  const out: RestartLine[] = [];
  for (const raw of text.split("\n")) {
    const line = readRestartLine(raw);
    if (line) out.push(line);
  }
  return out;
}

/**
 * Renders a line in the vocabulary above (used for round trips and by `-o log`). Callers that emit
 * it anywhere must first replace `senderId`/`sessionKey` by pseudonyms.
 */
export function formatRestartLine(line: RestartLine): string {
  const parts: string[] = [];
  if (line.kubeletTime) parts.push(line.kubeletTime);
  if (line.agentTime) parts.push(`[${line.agentTime}]`);
  parts.push("gateway", `restart-${line.phase}`);
  const fields: [string, string | number | boolean | null][] = [
    ...Object.entries(TEXT_FIELDS).map(([wire, field]): [string, string | null] => [wire, line[field]]),
    ["old_pid", line.oldPid],
    ["new_pid", line.newPid],
    ["first_start", line.firstStart],
  ];
  for (const [k, v] of fields) if (v !== null) parts.push(`${k}=${v}`);
  return parts.join(" ");
}
