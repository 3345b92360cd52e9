/**
 * Cursor codec (pipeline.md §4): `v1.<payload>.<mac>`, payload = base64url(JSON), mac =
 * base64url(HMAC-SHA-256(key, "runtime-logs-cursor\0" + payload)). Signed, not encrypted: it holds
 * Pod name and UID, counts, times and keyed 96-bit line hashes, never text. Every field is validated
 * strictly; anything wrong throws `RUNTIME_LOGS_CURSOR_INVALID` before any driver read.
 */
import { timingSafeEqual } from "node:crypto";
import { ServiceError } from "../api/errors.ts";
import { DNS_LABEL, isDnsSubdomain } from "../api/ids.ts";
import { hmacOf } from "../hmac.ts";
import { keyToMillis, parseUtcTime } from "./time.ts";
import type { CursorBinding, CursorKeys, CursorState, SecretKey } from "./types.ts";

export const MAX_CURSOR_CHARS = 2048;
export const CURSOR_TTL_MS = 60 * 60 * 1000;
export const CURSOR_MAX_SKEW_MS = 60 * 1000;
export const MAX_FRONTIER_HASHES = 16;
export const MAX_FUTURE_HASHES = 8;
export const MAX_PENDING_LINES = 8;
/** The furthest place a pending line can have (three base-36 digits). */
export const MAX_PENDING_PLACE = 36 ** 3 - 1;
const MIN_KEY_BYTES = 32;

const MAC_DOMAIN = "runtime-logs-cursor\0";
const BINDING_DOMAIN = "runtime-logs-binding\0";
const LINE_DOMAIN = "runtime-logs-line\0";

const B64URL = /^[A-Za-z0-9_-]+$/;
const HASH = /^[A-Za-z0-9_-]{16}$/;
/** A remembered far-future line: its hash, then `.` and its time in ms (base 36) when known. */
const FUTURE_ENTRY = /^[A-Za-z0-9_-]{16}(?:\.[0-9a-z]{1,11})?$/;
/** A pending untimed line: its hash, then `.` and its place after the last line accounted (base 36). */
const PENDING_ENTRY = /^[A-Za-z0-9_-]{16}\.(?:0|[1-9a-z][0-9a-z]{0,2})$/;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const UID = /^[A-Za-z0-9-]{1,64}$/;

/** A cursor's `lastTime` parsed: its comparison key and instant (ms). */
export interface FrontierTime {
  key: string;
  ms: number;
}

/** lastTime is parsed once per cursor state (when verified, or on first use), not at each step. */
const parsedFrontiers = new WeakMap<CursorState, FrontierTime | null>();

function toFrontierTime(lastTime: string | null): FrontierTime | null {
  const parsed = lastTime === null ? null : parseUtcTime(lastTime);
  return parsed === null ? null : { key: parsed.key, ms: keyToMillis(parsed.key) };
}

/** The parsed `lastTime` of a cursor state, or null when it has none. */
export function frontierTime(state: CursorState): FrontierTime | null {
  let t = parsedFrontiers.get(state);
  if (t === undefined) {
    t = toFrontierTime(state.lastTime);
    parsedFrontiers.set(state, t);
  }
  return t;
}

export type VerifiedCursor =
  | { status: "valid"; state: CursorState }
  | { status: "expired"; state: CursorState };

const invalid = (why: string): ServiceError =>
  new ServiceError("RUNTIME_LOGS_CURSOR_INVALID", { internal: why });

export function checkKey(key: SecretKey): void {
  if (!KEY_ID.test(key.id) || key.secret.length < MIN_KEY_BYTES) {
    throw new ServiceError("INTERNAL", { internal: "cursor key is malformed or shorter than 32 bytes" });
  }
}

/** The MAC of a cursor payload (every cursor variant signs the same way). */
export function mac(key: SecretKey, payload: string): string {
  return hmacOf(key.secret).digest(MAC_DOMAIN + payload, "base64url");
}

/** Keyed hash of the cursor binding (principal, namespace, Agent, deployment, source). */
export function bindingHash(key: SecretKey, b: CursorBinding): string {
  const canonical = JSON.stringify([b.principalId, b.namespaceId, b.agentId, b.deploymentId, b.source]);
  return hmacOf(key.secret)
    .digest(BINDING_DOMAIN + canonical, "buffer")
    .subarray(0, 16)
    .toString("base64url");
}

/** Keyed 96-bit hash of one raw log line, domain-separated from the MAC. */
export function lineHash(key: SecretKey, rawLine: string): string {
  // 12 bytes are 16 base64url characters: the first 16 of the whole digest's.
  return hmacOf(key.secret)
    .digest(LINE_DOMAIN + rawLine, "base64url")
    .slice(0, 16);
}

/** The key that signs (and hashes) new cursors. */
export const signingKey = (keys: CursorKeys): SecretKey => keys.current;

/** The key a verified cursor was made with (its line hashes use it too). */
export function keyById(keys: CursorKeys, id: string): SecretKey | null {
  if (keys.current.id === id) return keys.current;
  if (keys.previous !== undefined && keys.previous.id === id) return keys.previous;
  return null;
}

export function signCursor(state: CursorState, binding: CursorBinding, keys: CursorKeys): string {
  const key = signingKey(keys);
  checkKey(key);
  const body: Record<string, unknown> = {
    v: 1,
    k: key.id,
    b: bindingHash(key, binding),
    i: state.issuedAt,
    p: state.pod,
    u: state.podUid,
    ct: state.container,
    r: state.restartCount,
    pv: state.previous,
    tl: state.tailLines,
    t: state.lastTime,
    n: state.count,
    c: state.complete,
    h: state.hashes,
    po: state.pemOpen,
    pf: state.pemFrontier,
    f: state.future,
    a: state.anchor,
    w: state.lastNewAt,
    x: state.readAt,
  };
  // Only a page that left an untimed line names it: other cursors keep their shape.
  if (state.pending !== undefined && state.pending.length > 0) body.l = state.pending;
  // Validate what we sign with the same rules we verify with.
  validate(body, key.id);
  const payload = Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
  const token = `v1.${payload}.${mac(key, payload)}`;
  if (token.length > MAX_CURSOR_CHARS) throw new ServiceError("INTERNAL", { internal: "cursor too long" });
  return token;
}

const PAYLOAD_KEYS = [
  "v",
  "k",
  "b",
  "i",
  "p",
  "u",
  "ct",
  "r",
  "pv",
  "tl",
  "t",
  "n",
  "c",
  "h",
  "po",
  "pf",
  "f",
  "a",
  "w",
  "x",
].sort();
/** Fields a payload carries only when they are not empty. */
const OPTIONAL_KEYS = ["l"];

const isCount = (v: unknown, max: number): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0 && v <= max;

/** Field checks shared by signing and verifying; returns the state (without the binding). */
function validate(o: Record<string, unknown>, keyId: string): CursorState {
  const keys = Object.keys(o)
    .filter((key) => !OPTIONAL_KEYS.includes(key))
    .sort();
  if (keys.length !== PAYLOAD_KEYS.length || keys.some((k, i) => k !== PAYLOAD_KEYS[i])) {
    throw invalid("cursor fields");
  }
  const { v, k, i, p, u, ct, r, pv, tl, t, n, c, h, po, pf, f, a, w, x, l } = o;
  if (v !== 1 || k !== keyId) throw invalid("cursor version or key id");
  if (!isCount(i, 8.64e15) || i < 1) throw invalid("cursor issuedAt");
  if (typeof p !== "string" || !isDnsSubdomain(p)) throw invalid("cursor pod");
  if (typeof u !== "string" || !UID.test(u)) throw invalid("cursor uid");
  if (typeof ct !== "string" || !DNS_LABEL.test(ct)) throw invalid("cursor container");
  if (!isCount(r, 2 ** 31 - 1)) throw invalid("cursor restartCount");
  if (typeof pv !== "boolean" || typeof c !== "boolean" || typeof po !== "boolean") {
    throw invalid("cursor flags");
  }
  if (!isCount(tl, 1000) || tl < 1) throw invalid("cursor tailLines");
  const frontier = t === null || typeof t !== "string" ? null : toFrontierTime(t);
  if (t !== null && frontier === null) throw invalid("cursor lastTime");
  if (!isCount(n, 1_048_576)) throw invalid("cursor count");
  if (
    !Array.isArray(h) ||
    h.length > MAX_FRONTIER_HASHES ||
    h.some((x) => typeof x !== "string" || !HASH.test(x))
  ) {
    throw invalid("cursor hashes");
  }
  if (
    !Array.isArray(f) ||
    f.length > MAX_FUTURE_HASHES ||
    f.some((x) => typeof x !== "string" || !FUTURE_ENTRY.test(x))
  ) {
    throw invalid("cursor future hashes");
  }
  if (a !== null && a !== "" && (typeof a !== "string" || !HASH.test(a))) throw invalid("cursor anchor");
  if (l !== undefined && !isPendingList(l)) throw invalid("cursor pending lines");
  if (!isCount(w, 8.64e15) || w < 1) throw invalid("cursor lastNewAt");
  if (!isCount(x, 8.64e15) || x < 1) throw invalid("cursor readAt");
  // Inconsistent pairs.
  if (h.length > n) throw invalid("cursor hashes exceed count");
  if (t !== null && n === 0) throw invalid("cursor lastTime without lines");
  if (c && t === null) throw invalid("cursor complete without lastTime");
  if (pf !== null && (typeof pf !== "string" || pf !== t)) throw invalid("cursor pem frontier");
  if (!po && pf !== null) throw invalid("cursor pem frontier without block");
  if (l !== undefined && n === 0) throw invalid("cursor pending lines without lines");
  const state: CursorState = {
    keyId,
    issuedAt: i,
    pod: p,
    podUid: u,
    container: ct,
    restartCount: r,
    previous: pv,
    tailLines: tl,
    lastTime: t as string | null,
    count: n,
    complete: c,
    hashes: h as string[],
    pemOpen: po,
    pemFrontier: pf as string | null,
    future: f as string[],
    anchor: a as string | null,
    lastNewAt: w,
    readAt: x,
  };
  if (l !== undefined) state.pending = l as string[];
  parsedFrontiers.set(state, frontier);
  return state;
}

/** A non-empty list of at most 8 pending lines, their places strictly increasing. */
function isPendingList(l: unknown): boolean {
  if (!Array.isArray(l) || l.length === 0 || l.length > MAX_PENDING_LINES) return false;
  let last = -1;
  for (const entry of l) {
    if (typeof entry !== "string" || !PENDING_ENTRY.test(entry)) return false;
    const place = pendingPlace(entry);
    if (place <= last) return false;
    last = place;
  }
  return true;
}

/** A pending line's keyed hash. */
export const pendingHash = (entry: string): string => entry.slice(0, 16);

/** A pending line's place among the lines after the last one accounted. */
export const pendingPlace = (entry: string): number => Number.parseInt(entry.slice(17), 36);

/** The cursor entry of a pending line. */
export const pendingEntry = (hash: string, place: number): string => `${hash}.${place.toString(36)}`;

export function macMatches(key: SecretKey, payload: string, given: string): boolean {
  const expected = Buffer.from(mac(key, payload), "utf8");
  const actual = Buffer.from(given, "utf8");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Open a signed token of either cursor kind: shape, encoding, MAC under the current or previous
 * key, canonical payload, JSON object, binding, then the kind's own field rules (`validate`), the
 * issue time not in the future, and expiry (older than 1 h is reported, not thrown: the caller
 * starts a new view with a `cursor_expired` gap).
 */
export function openSignedCursor<S extends { issuedAt: number }>(
  token: string,
  ctx: { binding: CursorBinding; keys: CursorKeys; now: number },
  validateBody: (body: Record<string, unknown>, keyId: string) => S,
): { status: "valid" | "expired"; state: S } {
  if (typeof token !== "string" || token.length > MAX_CURSOR_CHARS) throw invalid("cursor length");
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== "v1") throw invalid("cursor shape");
  const payload = parts[1]!;
  const given = parts[2]!;
  if (!B64URL.test(payload) || given.length !== 43 || !B64URL.test(given)) throw invalid("cursor encoding");
  const candidates = [ctx.keys.current, ...(ctx.keys.previous === undefined ? [] : [ctx.keys.previous])];
  let key: SecretKey | null = null;
  for (const k of candidates) {
    checkKey(k);
    if (macMatches(k, payload, given)) key = k;
  }
  if (key === null) throw invalid("cursor mac");
  const bytes = Buffer.from(payload, "base64url");
  if (bytes.toString("base64url") !== payload) throw invalid("cursor payload not canonical");
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw invalid("cursor json");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("cursor json");
  const o = body as Record<string, unknown>;
  if (o.b !== bindingHash(key, ctx.binding)) throw invalid("cursor binding");
  const state = validateBody(o, key.id);
  if (state.issuedAt > ctx.now + CURSOR_MAX_SKEW_MS) throw invalid("cursor from the future");
  if (ctx.now - state.issuedAt > CURSOR_TTL_MS) return { status: "expired", state };
  return { status: "valid", state };
}

/** Verify a container cursor for this binding at `now` (ms since the epoch). */
export function verifyCursor(
  token: string,
  ctx: { binding: CursorBinding; keys: CursorKeys; now: number },
): VerifiedCursor {
  return openSignedCursor(token, ctx, validate);
}
