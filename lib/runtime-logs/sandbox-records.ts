/**
 * Sandbox lines → page records (the sandbox source): kind `sandbox`, the level from the line's own
 * level (`OCSF` is `info` with `format: ocsf`), `subsystem` = target, `origin`, the message
 * stripped of controls, redacted, then cut to 8 KiB, and the structured fields kept as they come
 * (the policy decision is the point) but bounded: at most 32 keys, values ≤ 512 B, every value
 * redacted and the value of a secret-named key masked whole.
 */
import type { SandboxLogLine } from "../openshell/types.ts";
import {
  type ClassifyContext,
  cleanString,
  levelFromName,
  MAX_FIELD_BYTES,
  MAX_INPUT_LINE_BYTES,
  MAX_MESSAGE_BYTES,
} from "./classify.ts";
import { fitUtf8, stripControls, utf8Length } from "./sanitize.ts";
import type { LineRecord, WithheldRecord } from "./types.ts";

export const MAX_SANDBOX_FIELDS = 32;
const MAX_SUBSYSTEM_BYTES = 256;
const MAX_FIELD_KEY_BYTES = 128;
export const SECRET_FIELD_MASK = "[redacted:key-value]";

/**
 * Whether a field's name says its value is a secret (the key-value rule's vocabulary, on the name
 * folded to lowercase letters and digits so `Api-Key`, `api_key` and `apiKey` read alike).
 */
export function isSecretFieldName(name: string): boolean {
  const folded = name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
  return (
    /token|secret|passw|passphrase|pwd|apikey|authorization|cookie|credential|privatekey|accesskey|signature|session/.test(
      folded,
    ) ||
    folded.endsWith("key") ||
    folded.endsWith("pass") ||
    folded === "auth"
  );
}

/** Epoch ms as the API's time (ms precision), or null when untimed (≤ 0) or unrepresentable. */
export function sandboxTime(ms: number): string | null {
  if (!(ms > 0) || ms > 253_402_300_799_999) return null;
  return new Date(ms).toISOString();
}

function text(s: string, max: number, ctx: ClassifyContext): { text: string; cut: boolean } {
  const redacted = cleanString(stripControls(s), ctx);
  const out = fitUtf8(redacted, max);
  return { text: out, cut: out.length !== redacted.length };
}

/** One line's record, or a withheld record when the line is too large to look at. */
export function sandboxRecord(line: SandboxLogLine, ctx: ClassifyContext): LineRecord | WithheldRecord {
  const time = sandboxTime(line.timestampMs);
  if (
    (line.message.length > MAX_INPUT_LINE_BYTES / 3 && utf8Length(line.message) > MAX_INPUT_LINE_BYTES) ||
    line.level.length > 64 ||
    line.target.length > 4096
  ) {
    return { type: "withheld", time, count: 1, reason: "oversized" };
  }
  const ocsf = line.level.toUpperCase() === "OCSF";
  const message = text(line.message, MAX_MESSAGE_BYTES, ctx);
  const rec: LineRecord = {
    type: "line",
    time,
    kind: "sandbox",
    level: ocsf ? "info" : levelFromName(line.level),
    message: message.text,
  };
  if (line.target !== "") rec.subsystem = text(line.target, MAX_SUBSYSTEM_BYTES, ctx).text;
  const keys = Object.keys(line.fields);
  if (keys.length > 0) {
    // No prototype: a field named `__proto__` is a field like any other.
    const fields: Record<string, string> = Object.create(null);
    let kept = 0;
    for (const key of keys) {
      if (kept === MAX_SANDBOX_FIELDS) break;
      const name = text(key, MAX_FIELD_KEY_BYTES, ctx).text;
      if (name === "" || Object.hasOwn(fields, name)) continue;
      const raw = line.fields[key] ?? "";
      fields[name] = isSecretFieldName(key) ? SECRET_FIELD_MASK : text(raw, MAX_FIELD_BYTES, ctx).text;
      kept++;
    }
    rec.fields = fields;
  }
  if (message.cut) rec.truncated = true;
  rec.origin = line.origin;
  if (ocsf) rec.format = "ocsf";
  return rec;
}
