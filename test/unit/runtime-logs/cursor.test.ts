/**
 * R3: cursor tampering. Every byte flip and field mutation of real cursors is rejected, as are
 * foreign bindings and cursors from the future; expiry is reported, not thrown; rotation works.
 */

import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isServiceError } from "../../../lib/api/errors.ts";
import {
  type CursorBinding,
  type CursorKeys,
  type CursorState,
  signCursor,
  verifyCursor,
} from "../../../lib/runtime-logs/index.ts";
import { BINDING, KEYS, OLD_KEYS } from "./harness.ts";

const NOW = Date.parse("2026-01-15T08:00:00Z");

const state = (over: Partial<CursorState> = {}): CursorState => ({
  keyId: KEYS.current.id,
  issuedAt: NOW,
  pod: "gateway-7d9f8b6c5d-x2k4p",
  podUid: "2b1f7c1e-8f0a-4c55-9d57-1a2b3c4d5e6f",
  container: "gateway",
  restartCount: 3,
  previous: false,
  tailLines: 200,
  lastTime: "2026-01-15T07:59:58.123456789Z",
  count: 20,
  complete: true,
  hashes: Array.from({ length: 16 }, (_, i) => Buffer.alloc(12, i).toString("base64url")),
  pemOpen: true,
  pemFrontier: "2026-01-15T07:59:58.123456789Z",
  future: [],
  anchor: "",
  lastNewAt: NOW,
  readAt: NOW,
  ...over,
});

const expectInvalid = (f: () => unknown): void => {
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  expect(isServiceError(thrown) && thrown.code === "RUNTIME_LOGS_CURSOR_INVALID").toBe(true);
};

const verify = (token: string, over: { binding?: CursorBinding; keys?: CursorKeys; now?: number } = {}) =>
  verifyCursor(token, { binding: over.binding ?? BINDING, keys: over.keys ?? KEYS, now: over.now ?? NOW });

/** Re-sign an arbitrary payload object with the real key: only field validation can reject it. */
function forge(body: Record<string, unknown>, keys: CursorKeys = KEYS): string {
  const payload = Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
  const mac = createHmac("sha256", keys.current.secret)
    .update(`runtime-logs-cursor\0${payload}`, "utf8")
    .digest("base64url");
  return `v1.${payload}.${mac}`;
}

const decode = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;

describe("cursor codec", () => {
  it("round-trips a state and stays within 2048 characters", () => {
    const s = state();
    const token = signCursor(s, BINDING, KEYS);
    expect(token.length).toBeLessThanOrEqual(2048);
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verify(token)).toEqual({ status: "valid", state: s });
    // Signed, not encrypted, but never any text: only the fields we put in.
    expect(Object.keys(decode(token)).sort()).toEqual(
      [
        "a",
        "b",
        "c",
        "ct",
        "f",
        "h",
        "i",
        "k",
        "n",
        "p",
        "pf",
        "po",
        "pv",
        "r",
        "t",
        "tl",
        "u",
        "v",
        "w",
        "x",
      ].sort(),
    );
  });

  it("a maximal cursor (longest pod name, 16 hashes) fits 2048 characters", () => {
    const token = signCursor(
      state({
        pod: `${"a".repeat(251)}-b`.slice(0, 253),
        podUid: "f".repeat(64),
        container: "c".repeat(63),
        // Each remembered far-future line with the longest time (ms, base 36) it can carry.
        future: Array.from({ length: 8 }, () => `AAAAAAAAAAAAAAAA.${(8.64e15).toString(36)}`),
        anchor: "BBBBBBBBBBBBBBBB",
        lastNewAt: 8.64e15,
        readAt: 8.64e15,
      }),
      BINDING,
      KEYS,
    );
    expect(token.length).toBeLessThanOrEqual(2048);
  });

  it("names pending untimed lines only when a page left some (field `l`), and round-trips them", () => {
    const pending = ["AAAAAAAAAAAAAAAA.0", "BBBBBBBBBBBBBBBB.a", "CCCCCCCCCCCCCCCC.rr"];
    const token = signCursor(state({ pending }), BINDING, KEYS);
    expect(decode(token).l).toEqual(pending);
    expect(verify(token)).toEqual({ status: "valid", state: state({ pending }) });
    // None left: the cursor is the one it was before pending lines existed.
    expect(signCursor(state({ pending: [] }), BINDING, KEYS)).toBe(signCursor(state(), BINDING, KEYS));
    expect(verify(signCursor(state(), BINDING, KEYS)).state).not.toHaveProperty("pending");
  });

  it("a maximal cursor with 8 pending lines and the longest key id fits 2048 characters", () => {
    const keyId = "k".repeat(64);
    const keys = { current: { id: keyId, secret: Buffer.alloc(32, 7) } };
    const token = signCursor(
      state({
        keyId,
        issuedAt: 8.64e15,
        pod: `${"a".repeat(251)}-b`.slice(0, 253),
        podUid: "f".repeat(64),
        container: "c".repeat(63),
        restartCount: 2 ** 31 - 1,
        tailLines: 1000,
        count: 1_048_576,
        future: Array.from({ length: 8 }, () => `AAAAAAAAAAAAAAAA.${(8.64e15).toString(36)}`),
        anchor: "BBBBBBBBBBBBBBBB",
        lastNewAt: 8.64e15,
        readAt: 8.64e15,
        pending: Array.from({ length: 8 }, (_, i) => `CCCCCCCCCCCCCCCC.${(36 ** 3 - 8 + i).toString(36)}`),
      }),
      BINDING,
      keys,
    );
    expect(token.length).toBeLessThanOrEqual(2048);
  });

  it("rejects malformed pending lines", () => {
    const good = decode(signCursor(state(), BINDING, KEYS));
    for (const value of [
      [],
      Array.from({ length: 9 }, (_, i) => `AAAAAAAAAAAAAAAA.${i}`),
      ["AAAAAAAAAAAAAAAA"],
      ["AAAAAAAAAAAAAAAA."],
      ["AAAAAAAAAAAAAAAA.01"],
      ["AAAAAAAAAAAAAAAA.1000"],
      ["AAAAAAAAAAAAAAAA.A"],
      ["short.1"],
      ["AAAAAAAAAAAAAAAA.2", "BBBBBBBBBBBBBBBB.2"],
      ["AAAAAAAAAAAAAAAA.3", "BBBBBBBBBBBBBBBB.2"],
      "AAAAAAAAAAAAAAAA.1",
      [7],
      null,
    ]) {
      expectInvalid(() => verify(forge({ ...good, l: value })));
    }
    expect(verify(forge({ ...good, l: ["AAAAAAAAAAAAAAAA.1"] })).status).toBe("valid");
    // Pending lines follow the last line accounted: a cursor that accounted none has none.
    expectInvalid(() =>
      verify(forge({ ...good, t: null, n: 0, h: [], c: false, pf: null, l: ["AAAAAAAAAAAAAAAA.1"] })),
    );
  });

  it("rejects malformed hostile-clock fields", () => {
    const good = decode(signCursor(state(), BINDING, KEYS));
    for (const [field, value] of [
      ["f", Array.from({ length: 9 }, () => "AAAAAAAAAAAAAAAA")],
      ["f", ["short"]],
      ["f", ["AAAAAAAAAAAAAAAA."]],
      ["f", ["AAAAAAAAAAAAAAAA.ZZ"]],
      ["f", ["AAAAAAAAAAAAAAAA.123456789abc"]],
      ["f", ["AAAAAAAAAAAAAAAA-1"]],
      ["f", "AAAAAAAAAAAAAAAA"],
      ["a", "not a hash!"],
      ["a", 7],
      ["w", 0],
      ["w", -1],
      ["w", "1"],
      ["x", 0],
      ["x", "1"],
    ] as const) {
      expectInvalid(() => verify(forge({ ...good, [field]: value })));
    }
    for (const anchor of [null, "", "AAAAAAAAAAAAAAAA"]) {
      expect(verify(forge({ ...good, a: anchor })).status).toBe("valid");
    }
  });

  it("rejects every single-character change of a real cursor", () => {
    const token = signCursor(state(), BINDING, KEYS);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    for (let i = 0; i < token.length; i++) {
      // A deterministic other character at each position, plus a raw bit flip of the byte.
      const other = alphabet[(alphabet.indexOf(token[i]!) + 1 + (i % 7)) % alphabet.length]!;
      expectInvalid(() => verify(token.slice(0, i) + other + token.slice(i + 1)));
      const flipped = String.fromCharCode(token.charCodeAt(i) ^ 1);
      expectInvalid(() => verify(token.slice(0, i) + flipped + token.slice(i + 1)));
    }
  });

  it("rejects truncation, extension and re-encoding", () => {
    const token = signCursor(state(), BINDING, KEYS);
    for (let cut = 0; cut < token.length; cut += 7) expectInvalid(() => verify(token.slice(0, cut)));
    expectInvalid(() => verify(`${token}=`));
    expectInvalid(() => verify(`${token}.x`));
    expectInvalid(() => verify(`v2${token.slice(2)}`));
    expectInvalid(() => verify(`${"x".repeat(2049)}`));
    // Padded base64url is another spelling of the same MAC: rejected.
    const [v, p, m] = token.split(".");
    expectInvalid(() => verify(`${v}.${p}.${m}=`));
    expectInvalid(() => verify(`${v}.${p}=.${m}`));
  });

  it("rejects any byte flip (property)", () => {
    const token = signCursor(state(), BINDING, KEYS);
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.integer({ min: 1, max: 255 }), (i, x) => {
        const code = token.charCodeAt(i) ^ x;
        expectInvalid(() => verify(token.slice(0, i) + String.fromCharCode(code) + token.slice(i + 1)));
      }),
      { numRuns: 300 },
    );
  });

  it("rejects foreign bindings", () => {
    const token = signCursor(state(), BINDING, KEYS);
    for (const field of ["principalId", "namespaceId", "agentId", "deploymentId"] as const) {
      expectInvalid(() => verify(token, { binding: { ...BINDING, [field]: `${BINDING[field]}x` } }));
    }
    expectInvalid(() => verify(token, { binding: { ...BINDING, source: "agent" } }));
  });

  it("rejects a cursor signed with another key", () => {
    const token = signCursor(state({ keyId: "zz" }), BINDING, {
      current: { id: "zz", secret: Buffer.alloc(32, 9) },
    });
    expectInvalid(() => verify(token));
  });

  it("expiry: valid at one hour, expired after; future beyond 60 s is invalid", () => {
    const token = signCursor(state(), BINDING, KEYS);
    expect(verify(token, { now: NOW + 3_600_000 }).status).toBe("valid");
    const late = verify(token, { now: NOW + 3_600_001 });
    expect(late.status).toBe("expired");
    expect(verify(token, { now: NOW - 60_000 }).status).toBe("valid");
    expectInvalid(() => verify(token, { now: NOW - 60_001 }));
    // Expired but tampered is still invalid.
    expectInvalid(() =>
      verify(
        token.replace(/.$/, (c) => (c === "A" ? "B" : "A")),
        { now: NOW + 7_200_000 },
      ),
    );
  });

  it("rotation: a cursor of the previous key stays valid; new cursors use the current key", () => {
    const old = signCursor(state({ keyId: OLD_KEYS.current.id }), BINDING, OLD_KEYS);
    const rotated: CursorKeys = { current: KEYS.current, previous: OLD_KEYS.current };
    const v = verify(old, { keys: rotated });
    expect(v.status).toBe("valid");
    expect(v.state.keyId).toBe(OLD_KEYS.current.id);
    // Once the previous key is gone, it is invalid.
    expectInvalid(() => verify(old, { keys: KEYS }));
    // A key id claiming the current key while signed by the previous is rejected.
    const liar = forge({ ...decode(old), k: KEYS.current.id }, OLD_KEYS);
    expectInvalid(() => verify(liar, { keys: rotated }));
  });

  it("rejects keys shorter than 32 bytes", () => {
    expect(() => signCursor(state(), BINDING, { current: { id: "k", secret: Buffer.alloc(16) } })).toThrow();
  });

  it("rejects every malformed field even when correctly signed", () => {
    const body = decode(signCursor(state(), BINDING, KEYS));
    const mutations: Array<[string, unknown]> = [
      ["v", 2],
      ["v", "1"],
      ["k", "other"],
      ["b", "AAAAAAAAAAAAAAAAAAAAAA"],
      ["i", -1],
      ["i", 1.5],
      ["i", "1"],
      ["p", "Bad_Pod"],
      ["p", ""],
      ["p", "a".repeat(254)],
      ["u", "uid with space"],
      ["u", "u".repeat(65)],
      ["ct", ""],
      ["ct", "Gateway"],
      ["ct", "a".repeat(64)],
      ["ct", "-gateway"],
      ["ct", 1],
      ["r", -1],
      ["r", 2 ** 31],
      ["r", 0.5],
      ["pv", "false"],
      ["tl", 0],
      ["tl", 1001],
      ["t", "2026-01-15T07:59:58+01:00"],
      ["t", "2026-02-30T00:00:00Z"],
      ["t", 5],
      ["n", -1],
      ["n", 3],
      ["n", 1.1],
      ["c", 1],
      ["h", "AAAA"],
      ["h", [...(body.h as string[]), "AAAAAAAAAAAAAAAA"]],
      ["h", ["short"]],
      ["h", [1]],
      ["po", null],
      ["pf", "2026-01-15T07:59:59Z"],
    ];
    for (const [key, value] of mutations) {
      expectInvalid(() => verify(forge({ ...body, [key]: value })));
    }
    const { pf: _pf, ...missing } = body;
    expectInvalid(() => verify(forge(missing)));
    expectInvalid(() => verify(forge({ ...body, extra: 1 })));
    expectInvalid(() => verify(forge({ ...body, t: null })));
    expectInvalid(() => verify(forge({ ...body, po: false })));
    // A well-formed forgery is accepted only because it is signed with the real key.
    expect(verify(forge(body)).status).toBe("valid");
  });
});
