/**
 * The sandbox page: the order of checks, records (levels, OCSF, origin, subsystem, fields), the
 * redaction of messages and fields, the level filter after signing, the budget, the download, and
 * the cursor's strictness.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SandboxChunk, SandboxLogLine } from "../../../lib/openshell/types.ts";
import {
  buildSandboxPage,
  downloadFileName,
  type LogRecord,
  planSandboxRead,
  renderSandboxDownload,
  verifySandboxCursor,
} from "../../../lib/runtime-logs/index.ts";
import type { SandboxPageInput } from "../../../lib/runtime-logs/sandbox-page.ts";
import { failureOf } from "../../support/failure.ts";
import { IDENTITY, KEYS, OLD_KEYS, SANDBOX_BINDING, T0 } from "./harness.ts";

const line = (ms: number, message: string, extra: Partial<SandboxLogLine> = {}): SandboxLogLine => ({
  sandboxId: "sbx-1",
  timestampMs: T0 + ms,
  level: "INFO",
  target: "openshell_sandbox::proxy",
  message,
  origin: "sandbox",
  fields: {},
  ...extra,
});

const chunk = (
  lines: SandboxLogLine[],
  requested = { lines: 200, sinceMs: 0 },
  bufferTotal = lines.length,
): SandboxChunk => ({
  gatewayId: "os1",
  sandboxName: "support-d2",
  lines,
  bufferTotal,
  requested,
});

function page(c: SandboxChunk, over: Partial<SandboxPageInput> = {}) {
  return buildSandboxPage({
    chunk: c,
    cursor: null,
    expired: false,
    view: { binding: SANDBOX_BINDING, tailLines: 200 },
    deploymentId: "d",
    requestId: "req_1",
    now: T0 + 10_000,
    keys: { cursor: KEYS, identity: IDENTITY },
    namespaceId: "ns",
    ...over,
  });
}

const state = (token: string, now = T0 + 10_000) => {
  const v = verifySandboxCursor(token, { binding: SANDBOX_BINDING, keys: KEYS, now });
  return v.state;
};
const lines = (recs: LogRecord[]) =>
  recs.filter((r) => r.type === "line").map((r) => (r.type === "line" ? r.message : ""));

describe("sandbox records", () => {
  it("maps levels, OCSF, origin, subsystem and fields", () => {
    const built = page(
      chunk([
        line(1, "CONNECT api.github.com:443", {
          fields: {
            action: "allow",
            dst_host: "api.github.com",
            dst_port: "443",
            binary: "/usr/bin/curl",
            policy: "default",
          },
        }),
        line(2, "CONNECT evil.example:443", {
          level: "WARN",
          fields: { action: "deny", reason: "not in policy" },
        }),
        line(3, '{"class_uid":4001,"activity_id":1}', { level: "OCSF", target: "ocsf" }),
        line(4, "supervisor crashed", { level: "ERROR", origin: "gateway", target: "" }),
        line(5, "odd", { level: "CHATTY" }),
      ]),
    );
    expect(built.page.stream).toEqual({
      source: "sandbox",
      gatewayId: "os1",
      sandbox: "support-d2",
      sandboxId: "sbx-1",
    });
    const recs = built.page.records;
    expect(recs[0]).toEqual({
      type: "line",
      time: new Date(T0 + 1).toISOString(),
      kind: "sandbox",
      level: "info",
      message: "CONNECT api.github.com:443",
      subsystem: "openshell_sandbox::proxy",
      fields: {
        action: "allow",
        dst_host: "api.github.com",
        dst_port: "443",
        binary: "/usr/bin/curl",
        policy: "default",
      },
      origin: "sandbox",
    });
    expect(recs[1]).toMatchObject({ level: "warn", fields: { action: "deny", reason: "not in policy" } });
    expect(recs[2]).toMatchObject({ level: "info", format: "ocsf", subsystem: "ocsf" });
    expect(recs[3]).toMatchObject({ level: "error", origin: "gateway" });
    expect(recs[3]).not.toHaveProperty("subsystem");
    expect(recs[4]).toMatchObject({ level: "unknown" });
  });

  it("redacts messages and every field value, masks secret-named keys whole, bounds fields", () => {
    const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    const fields: Record<string, string> = {
      url: `https://user:hunter22@example.com/?code=${token}`,
      api_key: "plain-looking-value",
      Authorization: "Bearer abc",
      sessionToken: "x",
      note: `token=${token}`,
      big: "x".repeat(2000),
    };
    const all: Record<string, string> = Object.fromEntries([
      ...Object.entries(fields),
      ["__proto__", "still a field"],
      ...Array.from({ length: 40 }, (_, i) => [`f${i}`, String(i)]),
    ]);
    const built = page(
      chunk([line(1, `curl -H "Authorization: Bearer ${token}" --password s3cr3t!`, { fields: all })]),
    );
    const body = built.body;
    expect(body).not.toContain(token);
    expect(body).not.toContain("hunter22");
    expect(body).not.toContain("plain-looking-value");
    expect(body).not.toContain("s3cr3t!");
    const rec = built.page.records[0]!;
    if (rec.type !== "line") throw new Error("expected a line");
    expect(rec.fields?.api_key).toBe("[redacted:key-value]");
    expect(rec.fields?.Authorization).toBe("[redacted:key-value]");
    expect(rec.fields?.sessionToken).toBe("[redacted:key-value]");
    expect(Object.keys(rec.fields ?? {})).toHaveLength(32);
    expect(Buffer.byteLength(String(rec.fields?.big))).toBeLessThanOrEqual(512);
    expect(Object.hasOwn(rec.fields ?? {}, "__proto__")).toBe(true);
  });

  it("filters by level after signing the cursor, keeping unknown levels", () => {
    const built = page(
      chunk([
        line(1, "dbg", { level: "DEBUG" }),
        line(2, "odd", { level: "X" }),
        line(3, "bad", { level: "ERROR" }),
      ]),
      {
        view: { binding: SANDBOX_BINDING, tailLines: 200, minLevel: "warn" },
      },
    );
    expect(lines(built.page.records)).toEqual(["odd", "bad"]);
    // The cursor accounts for the hidden line: the next read does not deliver it again.
    const next = page(
      chunk(
        [
          line(1, "dbg", { level: "DEBUG" }),
          line(2, "odd", { level: "X" }),
          line(3, "bad", { level: "ERROR" }),
        ],
        { lines: 2000, sinceMs: T0 },
      ),
      {
        cursor: state(built.cursor),
      },
    );
    expect(lines(next.page.records)).toEqual([]);
  });

  it("renders a download with the sandbox header and a sandbox file name", () => {
    const built = page(
      chunk([line(1, "CONNECT evil.example:443", { level: "WARN", fields: { action: "deny" } })]),
    );
    const text = renderSandboxDownload({ agentId: "support" }, built.page);
    const [header, first] = text.split("\n");
    expect(header).toBe(
      `# agent=support deployment=d source=sandbox gateway=os1 sandbox=support-d2 sandboxId=sbx-1 observedAt=${built.page.observedAt} withheld=0`,
    );
    expect(first).toBe(
      `${new Date(T0 + 1).toISOString()} WARN sandbox [openshell_sandbox::proxy] CONNECT evil.example:443 action=deny`,
    );
    expect(downloadFileName({ agentId: "support", deploymentId: "d", source: "sandbox" })).toBe(
      "support-d-sandbox.log",
    );
  });
});

describe("sandbox resume", () => {
  it("plans the first read from the tail and a resume from the frontier minus 5 s", () => {
    expect(planSandboxRead({ cursor: null, tailLines: 50 })).toEqual({ lines: 50, sinceMs: 0 });
    expect(planSandboxRead({ cursor: null, tailLines: 50, sinceMs: T0 })).toEqual({ lines: 50, sinceMs: T0 });
    const built = page(chunk([line(1, "a"), line(9000, "b")]));
    expect(planSandboxRead({ cursor: state(built.cursor), tailLines: 50 })).toEqual({
      lines: 2000,
      sinceMs: T0 + 4000,
    });
  });

  it("refuses an answer naming two instances with 503", () => {
    const e = failureOf(() => page(chunk([line(1, "a"), line(2, "b", { sandboxId: "sbx-2" })])));
    expect(e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("delivers identical lines in one millisecond once each, and new ones after", () => {
    const first = page(chunk([line(5, "same"), line(5, "same")]));
    const again = [line(5, "same"), line(5, "same"), line(5, "same"), line(6, "next")];
    const second = page(chunk(again, { lines: 2000, sinceMs: T0 }), { cursor: state(first.cursor) });
    expect(lines(second.page.records)).toEqual(["same", "next"]);
    const third = page(chunk(again, { lines: 2000, sinceMs: T0 }), { cursor: state(second.cursor) });
    expect(lines(third.page.records)).toEqual([]);
  });

  it("never delivers lines older than the view's first page, even in its first millisecond", () => {
    // A burst in one millisecond, a tail of 2 taken from its end, then a line 4 s later.
    const ring = Array.from({ length: 6 }, (_, i) => line(5, `burst #${i}`));
    const first = page(chunk(ring.slice(-2), { lines: 2, sinceMs: 0 }, 6), {
      view: { binding: SANDBOX_BINDING, tailLines: 2 },
    });
    expect(lines(first.page.records)).toEqual(["burst #4", "burst #5"]);
    const later = [...ring, line(4_000, "later"), line(3_000, "dated earlier, written after")];
    const resume = { lines: 2000, sinceMs: T0 };
    const second = page(chunk(later, resume), { cursor: state(first.cursor) });
    expect(second.page.records.map((r) => (r.type === "line" ? r.message : r.type))).toEqual([
      "later",
      "dated earlier, written after",
    ]);
    // The whole ring again, with one line older than the view at an earlier millisecond first.
    const third = page(chunk([line(1, "older"), ...later], resume), { cursor: state(second.cursor) });
    expect(third.page.records).toEqual([]);
  });

  it("places identical lines of the first millisecond after the older ones, and a new one once", () => {
    // Older than the view: `allow tick allow`; the first page: `allow tick tick`.
    const ring = ["allow", "tick", "allow", "allow", "tick", "tick"].map((m) => line(5, m));
    const first = page(chunk(ring.slice(-3), { lines: 3, sinceMs: 0 }, 6), {
      view: { binding: SANDBOX_BINDING, tailLines: 3 },
    });
    expect(lines(first.page.records)).toEqual(["allow", "tick", "tick"]);
    const resume = { lines: 2000, sinceMs: T0 };
    const second = page(chunk(ring, resume), { cursor: state(first.cursor) });
    expect(second.page.records).toEqual([]);
    const third = page(chunk([...ring, line(5, "tick")], resume), { cursor: state(second.cursor) });
    expect(lines(third.page.records)).toEqual(["tick"]);
  });

  it("reports a new instance as stream_replaced and delivers all of its lines", () => {
    const first = page(chunk([line(5, "old")]));
    const next = page(
      chunk([line(1, "new-a", { sandboxId: "sbx-2" }), line(2, "new-b", { sandboxId: "sbx-2" })]),
      {
        cursor: state(first.cursor),
      },
    );
    expect(next.page.records[0]).toMatchObject({
      type: "gap",
      reason: "stream_replaced",
      time: new Date(T0 + 1).toISOString(),
    });
    expect(lines(next.page.records)).toEqual(["new-a", "new-b"]);
    expect(next.page.stream).toMatchObject({ sandboxId: "sbx-2" });
  });

  it("reports buffer_lost when the ring rolled past the frontier, window_exceeded for a full window", () => {
    const first = page(chunk([line(5, "a"), line(6, "b")]));
    const rolled = page(chunk([line(20, "c"), line(21, "d")], { lines: 2000, sinceMs: T0 }), {
      cursor: state(first.cursor),
    });
    expect(rolled.page.records[0]).toMatchObject({
      type: "gap",
      reason: "buffer_lost",
      time: new Date(T0 + 20).toISOString(),
    });
    expect(lines(rolled.page.records)).toEqual(["c", "d"]);
    // A full window of a ring that holds more: the lost lines may be past the window.
    const full = page(chunk([line(20, "c"), line(21, "d")], { lines: 2, sinceMs: T0 }, 5), {
      cursor: state(first.cursor),
    });
    expect(full.page.records[0]).toMatchObject({ type: "gap", reason: "window_exceeded" });
    // A full window that is the whole ring (capacity 2000 read with lines=2000): they were evicted.
    const whole = page(chunk([line(20, "c"), line(21, "d")], { lines: 2, sinceMs: T0 }, 2), {
      cursor: state(first.cursor),
    });
    expect(whole.page.records[0]).toMatchObject({ type: "gap", reason: "buffer_lost" });
    // The gap is reported once: the next poll resumes from what it delivered.
    const after = page(chunk([line(20, "c"), line(21, "d")], { lines: 2000, sinceMs: T0 }), {
      cursor: state(rolled.cursor),
    });
    expect(after.page.records).toEqual([]);
  });

  it("reports a possible loss of a full ring once, until the ring moves again", () => {
    // A ring of 4 full of one millisecond's lines: the view cannot prove it saw them in place, so
    // a read of the whole ring reports buffer_lost; read again unchanged, it has nothing to report.
    const burst = (from: number) => Array.from({ length: 4 }, (_, i) => line(5, `burst #${from + i}`));
    const resume = { lines: 2000, sinceMs: T0 };
    const first = page(chunk(burst(0).slice(-1), { lines: 1, sinceMs: 0 }, 4), {
      view: { binding: SANDBOX_BINDING, tailLines: 1 },
      ringCapacity: 4,
    });
    const rolled = page(chunk(burst(4), resume), { cursor: state(first.cursor), ringCapacity: 4 });
    expect(rolled.page.records[0]).toMatchObject({ type: "gap", reason: "buffer_lost" });
    expect(lines(rolled.page.records)).toEqual(["burst #4", "burst #5", "burst #6", "burst #7"]);
    const same = page(chunk(burst(4), resume), { cursor: state(rolled.cursor), ringCapacity: 4 });
    expect(same.page.records).toEqual([]);
    const again = page(chunk(burst(4), resume), { cursor: state(same.cursor), ringCapacity: 4 });
    expect(again.page.records).toEqual([]);
    // One line more evicts the first: the ring moved, and the gap is reported with the new line.
    const moved = page(chunk([...burst(4).slice(1), line(6, "next")], resume), {
      cursor: state(again.cursor),
      ringCapacity: 4,
    });
    expect(moved.page.records.map((r) => (r.type === "line" ? r.message : r.type))).toEqual(["gap", "next"]);
  });

  it("delivers untimed lines once without moving the frontier", () => {
    const now = T0 + 10_000;
    const future = line(now - T0 + 3_600_000, "from the future");
    const zero = { ...line(0, "zero"), timestampMs: 0 };
    const first = page(chunk([zero, line(1, "a"), future]));
    expect(lines(first.page.records)).toEqual(["zero", "a", "from the future"]);
    expect(first.page.records[0]).toMatchObject({ time: null });
    const s = state(first.cursor);
    expect(s.frontierMs).toBe(T0 + 1);
    const next = page(chunk([line(1, "a"), future, line(2, "b")], { lines: 2000, sinceMs: T0 }), {
      cursor: s,
    });
    expect(lines(next.page.records)).toEqual(["b"]);
  });

  it("a page cut by its budget resumes right after the last delivered line", () => {
    const many = Array.from({ length: 800 }, (_, i) => line(i, `line ${i} ${"x".repeat(1000)}`));
    const first = page(chunk(many, { lines: 1000, sinceMs: 0 }));
    expect(first.page.truncated).toBe(true);
    expect(Buffer.byteLength(first.body)).toBeLessThanOrEqual(524_288);
    const got = lines(first.page.records).length;
    const next = page(chunk(many, { lines: 2000, sinceMs: 0 }), { cursor: state(first.cursor) });
    expect(lines(next.page.records)[0]).toBe(`line ${got} ${"x".repeat(1000)}`);
  });
});

describe("sandbox cursor", () => {
  const token = page(chunk([line(1, "a"), line(1, "a"), line(2, "b")])).cursor;

  it("stays under 2048 characters with 48 hashes and 16 untimed ones", () => {
    const many = Array.from({ length: 100 }, (_, i) => line(4000 + Math.floor(i / 3), `m${i}`));
    const future = Array.from({ length: 20 }, (_, i) => line(10_000_000 + i, `f${i}`));
    const t = page(chunk([...many, ...future], { lines: 1000, sinceMs: 0 })).cursor;
    expect(t.length).toBeLessThanOrEqual(2048);
    const s = state(t);
    expect(s.groups.reduce((n, g) => n + g.hashes.length, 0)).toBe(48);
    expect(s.untimed).toHaveLength(16);
  });

  it("rejects every byte flip, a foreign binding, a container binding and a future issuedAt", () => {
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.integer({ min: 1, max: 60 }), (i, d) => {
        const c = String.fromCharCode(((token.charCodeAt(i) - 32 + d) % 95) + 32);
        const bad = token.slice(0, i) + c + token.slice(i + 1);
        if (bad === token) return;
        expect(() =>
          verifySandboxCursor(bad, { binding: SANDBOX_BINDING, keys: KEYS, now: T0 + 10_000 }),
        ).toThrow(expect.objectContaining({ code: "RUNTIME_LOGS_CURSOR_INVALID" }));
      }),
      { numRuns: 300 },
    );
    for (const binding of [
      { ...SANDBOX_BINDING, principalId: "q" },
      { ...SANDBOX_BINDING, source: "gateway" as const },
    ]) {
      expect(() => verifySandboxCursor(token, { binding, keys: KEYS, now: T0 + 10_000 })).toThrow(
        expect.objectContaining({ code: "RUNTIME_LOGS_CURSOR_INVALID" }),
      );
    }
    expect(() =>
      verifySandboxCursor(token, { binding: SANDBOX_BINDING, keys: KEYS, now: T0 - 120_000 }),
    ).toThrow(expect.objectContaining({ code: "RUNTIME_LOGS_CURSOR_INVALID" }));
    expect(
      verifySandboxCursor(token, { binding: SANDBOX_BINDING, keys: KEYS, now: T0 + 3_700_000 }).status,
    ).toBe("expired");
    expect(() =>
      verifySandboxCursor(token, { binding: SANDBOX_BINDING, keys: OLD_KEYS, now: T0 + 10_000 }),
    ).toThrow();
  });
});
