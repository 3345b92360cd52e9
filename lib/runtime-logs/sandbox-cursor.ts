/**
 * The sandbox stream's cursor (the sandbox source; the container cursor's sibling): the same
 * token form, MAC, key rotation, binding, expiry and strictness, with a payload of its own. It
 * holds the instance ID, the time frontier, the overlap start, and the keyed 96-bit hashes of up
 * to 48 lines delivered inside the overlap with a count per millisecond, packed in binary, plus up
 * to 16 hashes of untimed lines (0, negative or far-future times: delivered once, never a
 * frontier). Never text.
 */
import { ServiceError } from "../api/errors.ts";
import { hmacOf } from "../hmac.ts";
import { bindingHash, checkKey, MAX_CURSOR_CHARS, mac, openSignedCursor, signingKey } from "./cursor.ts";
import type { CursorBinding, CursorKeys, SecretKey } from "./types.ts";

/** Resume re-reads this much before the frontier (milliseconds). */
export const SANDBOX_OVERLAP_MS = 5_000;
export const MAX_OVERLAP_HASHES = 48;
export const MAX_UNTIMED_HASHES = 16;
const HASH_BYTES = 12;
/** One line hash in base64url. */
const HASH_TEXT = /^[A-Za-z0-9_-]{16}$/;
const LINE_DOMAIN = "runtime-logs-sandbox-line\0";
const B64URL = /^[A-Za-z0-9_-]*$/;
/** OpenShell instance IDs as we accept them (the cursor binds one). */
export const SANDBOX_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** Epoch ms the cursor accepts for times (year 1970 … 9999). */
const MAX_MS = 253_402_300_799_999;

/** Lines accounted at one millisecond of the overlap: how many, and the hashes of the newest of them. */
export interface OverlapGroup {
  ms: number;
  count: number;
  /** Hashes (12 bytes) of the newest `hashes.length` ≤ `count` lines of the group, in ring order. */
  hashes: Buffer[];
  /**
   * The view's first page began inside this millisecond (its tail cut the ring there): lines of
   * it before the remembered ones may be older than the view.
   */
  open?: boolean;
}

export interface SandboxCursorState {
  keyId: string;
  issuedAt: number;
  /** The instance the view reads; null until a line was seen. */
  sandboxId: string | null;
  tailLines: number;
  /** Newest delivered timed line (ms); null before the first. */
  frontierMs: number | null;
  /** Lines older than this are never delivered again; null with no frontier. */
  overlapStartMs: number | null;
  /** Oldest first; within [overlapStartMs, frontierMs]. */
  groups: OverlapGroup[];
  /** Hashes of delivered untimed lines (time ≤ 0 or far in the future), oldest first. */
  untimed: Buffer[];
  /** The last page was cut before an untimed line: the next read must not filter by time. */
  untimedPending: boolean;
  /**
   * Hash of the first line of the last answer, when that answer was the whole full ring: while
   * the ring still begins with it, nothing was evicted since, and no new loss is reported.
   */
  ringStart: Buffer | null;
}

export type VerifiedSandboxCursor =
  | { status: "valid"; state: SandboxCursorState }
  | { status: "expired"; state: SandboxCursorState };

const invalid = (why: string): ServiceError =>
  new ServiceError("RUNTIME_LOGS_CURSOR_INVALID", { internal: why });

/** Keyed 96-bit hash of one sandbox line (time, level, target, message, origin, fields). */
export function sandboxLineHash(
  key: SecretKey,
  line: {
    timestampMs: number;
    level: string;
    target: string;
    message: string;
    origin: string;
    fields: Record<string, string>;
  },
): Buffer {
  const fields = Object.keys(line.fields)
    .sort()
    .map((k) => [k, line.fields[k]]);
  const canonical = JSON.stringify([
    line.timestampMs,
    line.level,
    line.target,
    line.message,
    line.origin,
    fields,
  ]);
  return hmacOf(key.secret)
    .digest(LINE_DOMAIN + canonical, "buffer")
    .subarray(0, HASH_BYTES);
}

// Binary groups: per group, varint(frontier − ms), varint(count × 2 + open), varint(n hashes), n × 12
// bytes.
function writeVarint(out: number[], n: number): void {
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

function packGroups(frontier: number, groups: readonly OverlapGroup[]): string {
  const head: number[] = [];
  const parts: Buffer[] = [];
  for (const g of groups) {
    head.length = 0;
    writeVarint(head, frontier - g.ms);
    writeVarint(head, g.count * 2 + (g.open ? 1 : 0));
    writeVarint(head, g.hashes.length);
    parts.push(Buffer.from(head), ...g.hashes);
  }
  return Buffer.concat(parts).toString("base64url");
}

function unpackGroups(frontier: number, text: string): OverlapGroup[] {
  const bytes = Buffer.from(text, "base64url");
  if (bytes.toString("base64url") !== text) throw invalid("sandbox cursor groups not canonical");
  let p = 0;
  const varint = (): number => {
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      if (p >= bytes.length) throw invalid("sandbox cursor groups truncated");
      const b = bytes[p++]!;
      v += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (b === 0 && i > 0) throw invalid("sandbox cursor varint not minimal");
        return v;
      }
      scale *= 0x80;
    }
    throw invalid("sandbox cursor varint too long");
  };
  const groups: OverlapGroup[] = [];
  while (p < bytes.length) {
    const delta = varint();
    const counted = varint();
    const count = Math.floor(counted / 2);
    const n = varint();
    if (p + n * HASH_BYTES > bytes.length) throw invalid("sandbox cursor hashes truncated");
    const hashes: Buffer[] = [];
    for (let i = 0; i < n; i++)
      hashes.push(Buffer.from(bytes.subarray(p + i * HASH_BYTES, p + (i + 1) * HASH_BYTES)));
    p += n * HASH_BYTES;
    groups.push(
      counted % 2 === 1
        ? { ms: frontier - delta, count, hashes, open: true }
        : { ms: frontier - delta, count, hashes },
    );
  }
  return groups;
}

function packHashes(hashes: readonly Buffer[]): string {
  return Buffer.concat(hashes).toString("base64url");
}

function unpackHashes(text: string): Buffer[] {
  const bytes = Buffer.from(text, "base64url");
  if (bytes.toString("base64url") !== text || bytes.length % HASH_BYTES !== 0) {
    throw invalid("sandbox cursor untimed hashes");
  }
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += HASH_BYTES) out.push(Buffer.from(bytes.subarray(i, i + HASH_BYTES)));
  return out;
}

const PAYLOAD_KEYS = ["v", "x", "k", "b", "i", "s", "tl", "f", "o", "g", "u", "p", "r"].sort();
const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;

/** Every field and pair checked; the same rules for signing and verifying. */
function validate(o: Record<string, unknown>, keyId: string): SandboxCursorState {
  const keys = Object.keys(o).sort();
  if (keys.length !== PAYLOAD_KEYS.length || keys.some((k, i) => k !== PAYLOAD_KEYS[i])) {
    throw invalid("sandbox cursor fields");
  }
  const { v, x, k, i, s, tl, f, o: start, g, u, p, r } = o;
  if (v !== 1 || x !== "sandbox" || k !== keyId) throw invalid("sandbox cursor version, kind or key id");
  if (!isInt(i, 1, MAX_MS)) throw invalid("sandbox cursor issuedAt");
  if (s !== null && (typeof s !== "string" || !SANDBOX_ID.test(s))) throw invalid("sandbox cursor instance");
  if (!isInt(tl, 1, 1000)) throw invalid("sandbox cursor tailLines");
  if (typeof g !== "string" || !B64URL.test(g) || g.length > 1200) throw invalid("sandbox cursor groups");
  if (typeof u !== "string" || !B64URL.test(u) || u.length > 300) throw invalid("sandbox cursor untimed");
  if (typeof p !== "boolean") throw invalid("sandbox cursor pending flag");
  if (typeof r !== "string" || (r !== "" && !HASH_TEXT.test(r))) throw invalid("sandbox cursor ring start");
  const ringStart = r === "" ? null : Buffer.from(r, "base64url");
  if (ringStart !== null && ringStart.toString("base64url") !== r) throw invalid("sandbox cursor ring start");
  const untimed = unpackHashes(u);
  if (untimed.length > MAX_UNTIMED_HASHES) throw invalid("sandbox cursor untimed hashes");
  if (f === null) {
    if (start !== null || g !== "") throw invalid("sandbox cursor overlap without frontier");
    return {
      keyId,
      issuedAt: i,
      sandboxId: s,
      tailLines: tl,
      frontierMs: null,
      overlapStartMs: null,
      groups: [],
      untimed,
      untimedPending: p,
      ringStart,
    };
  }
  if (!isInt(f, 1, MAX_MS) || !isInt(start, 1, MAX_MS)) throw invalid("sandbox cursor frontier");
  if (start > f || f - start > SANDBOX_OVERLAP_MS) throw invalid("sandbox cursor overlap start");
  const groups = unpackGroups(f, g);
  let total = 0;
  let prev = -1;
  for (const grp of groups) {
    if (grp.ms < start || grp.ms > f || grp.ms <= prev) throw invalid("sandbox cursor group order");
    if (grp.count < 1 || grp.count > 1_000_000 || grp.hashes.length > grp.count) {
      throw invalid("sandbox cursor group count");
    }
    total += grp.hashes.length;
    prev = grp.ms;
  }
  if (total > MAX_OVERLAP_HASHES) throw invalid("sandbox cursor too many hashes");
  if (s === null) throw invalid("sandbox cursor frontier without instance");
  return {
    keyId,
    issuedAt: i,
    sandboxId: s,
    tailLines: tl,
    frontierMs: f,
    overlapStartMs: start,
    groups,
    untimed,
    untimedPending: p,
    ringStart,
  };
}

export function signSandboxCursor(
  state: SandboxCursorState,
  binding: CursorBinding,
  keys: CursorKeys,
): string {
  const key = signingKey(keys);
  checkKey(key);
  const f = state.frontierMs;
  const body = {
    v: 1,
    x: "sandbox",
    k: key.id,
    b: bindingHash(key, binding),
    i: state.issuedAt,
    s: state.sandboxId,
    tl: state.tailLines,
    f,
    o: state.overlapStartMs,
    g: f === null ? "" : packGroups(f, state.groups),
    u: packHashes(state.untimed),
    p: state.untimedPending,
    r: state.ringStart === null ? "" : state.ringStart.toString("base64url"),
  };
  validate(body, key.id);
  const payload = Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
  const token = `v1.${payload}.${mac(key, payload)}`;
  if (token.length > MAX_CURSOR_CHARS)
    throw new ServiceError("INTERNAL", { internal: "sandbox cursor too long" });
  return token;
}

/** Verify a sandbox cursor for this binding at `now`; an expired one is reported, not thrown. */
export function verifySandboxCursor(
  token: string,
  ctx: { binding: CursorBinding; keys: CursorKeys; now: number },
): VerifiedSandboxCursor {
  return openSignedCursor(token, ctx, validate);
}
