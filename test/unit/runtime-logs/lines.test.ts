/**
 * Line parsing (docs/pipeline.md §1) and classification (§2): timestamps, levels, structured shapes,
 * the field allowlist, pretty-printed JSON, size limits, control stripping and pseudonyms.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ClassifyContext,
  classifyLine,
  levelFromName,
  plainLevel,
} from "../../../lib/runtime-logs/classify.ts";
import { pseudonymize } from "../../../lib/runtime-logs/index.ts";
import { parseLine, splitChunk, splitRead } from "../../../lib/runtime-logs/lines.ts";
import { stripControls } from "../../../lib/runtime-logs/sanitize.ts";
import { parseTimestamp } from "../../../lib/runtime-logs/time.ts";
import { IDENTITY } from "./harness.ts";

describe("kubelet timestamps", () => {
  const timed: Array<[string, string, string]> = [
    ["2026-01-15T08:00:00Z x", "2026-01-15T08:00:00Z", "2026-01-15T08:00:00.000000000"],
    ["2026-01-15T08:00:00.5Z x", "2026-01-15T08:00:00.5Z", "2026-01-15T08:00:00.500000000"],
    ["2026-01-15T08:00:00.123456789Z x", "2026-01-15T08:00:00.123456789Z", "2026-01-15T08:00:00.123456789"],
    ["2026-01-15T09:30:00.120+01:30 x", "2026-01-15T08:00:00.120Z", "2026-01-15T08:00:00.120000000"],
    ["2026-01-01T00:30:00-01:00 x", "2026-01-01T01:30:00Z", "2026-01-01T01:30:00.000000000"],
    ["2026-01-01T00:30:00.1+01:00 x", "2025-12-31T23:30:00.1Z", "2025-12-31T23:30:00.100000000"],
    ["2024-02-29T23:59:59Z x", "2024-02-29T23:59:59Z", "2024-02-29T23:59:59.000000000"],
  ];
  it.each(timed)("%s", (line, time, key) => {
    const l = parseLine(line);
    expect(l.time).toBe(time);
    expect(l.key).toBe(key);
    expect(l.text).toBe("x");
  });

  const untimed = [
    "2026-02-30T08:00:00Z x",
    "2025-02-29T08:00:00Z x",
    "2026-13-01T08:00:00Z x",
    "2026-01-15T24:00:00Z x",
    "2026-01-15T08:60:00Z x",
    "2026-01-15T08:00:60Z x",
    "2026-01-15T08:00:00.1234567890Z x",
    "2026-01-15T08:00:00.Z x",
    "2026-01-15T08:00:00 x",
    "2026-01-15 08:00:00Z x",
    "2026-01-15T08:00:00+25:00 x",
    "2026-01-15T08:00:00ZX",
    "no timestamp at all",
  ];
  it.each(untimed)("untimed: %s", (line) => {
    const l = parseLine(line);
    expect(l.time).toBeNull();
    expect(l.text).toBe(line);
  });

  it("keys order by instant, padding fractions to 9 digits", () => {
    const a = parseTimestamp("2026-01-15T08:00:00.5Z")!.key;
    const b = parseTimestamp("2026-01-15T08:00:00.123456789Z")!.key;
    const c = parseTimestamp("2026-01-15T08:00:00.50Z")!.key;
    expect(b < a).toBe(true);
    expect(a).toBe(c);
  });

  it("drops the partial last line of a byte-cut read before anything sees it", () => {
    const s = splitChunk("2026-01-15T08:00:00Z one\n2026-01-15T08:00:01Z password=hun", true);
    expect(s.lines.map((l) => l.text)).toEqual(["one"]);
    expect(s.returned).toBe(2);
    expect(s.partialTime?.time).toBe("2026-01-15T08:00:01Z");
    const whole = splitChunk("2026-01-15T08:00:00Z one\n2026-01-15T08:00:01Z two", false);
    expect(whole.lines.map((l) => l.text)).toEqual(["one", "two"]);
    expect(splitChunk("a\nb\n", true).lines.map((l) => l.text)).toEqual(["a", "b"]);
  });

  it("hands a split on only for the read, cut and tail it was made with", () => {
    const text = "2026-01-15T08:00:00Z one\n2026-01-15T08:00:01Z two\n2026-01-15T08:00:02Z thr";
    const read = { text, truncated: true };
    const known = splitRead(read, 2);
    expect(known.lines.map((l) => l.text)).toEqual(["one", "two"]);
    expect(splitRead(read, 2, known)).toBe(known);
    // Another tail, another cut or another text: split again, as splitChunk does.
    for (const [other, max] of [
      [read, 1],
      [{ text, truncated: false }, 2],
      [{ text: `${text}ee\n`, truncated: true }, 2],
    ] as const) {
      const again = splitRead(other, max, known);
      expect(again).not.toBe(known);
      expect(again).toEqual(splitChunk(other.text, other.truncated, max));
    }
  });

  it("parses each line of a chunk as that line alone, however a timestamp is cut by its line's end", () => {
    const stamp = fc.constantFrom(
      "2026-01-15T08:00:00.123456789Z",
      "2026-01-15T08:00:00Z",
      "2026-01-15T08:00:00.5Z",
      "2026-01-15T09:30:00.120+01:30",
      "2024-02-29T23:59:59-00:30",
      "2026-01-15T08:00:00.1234567890Z",
    );
    // A line: a timestamp cut anywhere (or whole), maybe followed by a space and text.
    const line = fc
      .tuple(stamp, fc.nat(31), fc.constantFrom("", " ", " x", "x", "5Z x", ":00Z y"))
      .map(([t, cut, rest]) => t.slice(0, cut) + rest);
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), fc.boolean(), (parts, nl) => {
        const { lines } = splitChunk(parts.join("\n") + (nl ? "\n" : ""), false);
        // Without a final newline, an empty last part is the newline before it ending the line above.
        expect(lines.map((l) => l.raw)).toEqual(!nl && parts.at(-1) === "" ? parts.slice(0, -1) : parts);
        for (const l of lines) {
          const alone = parseTimestamp(l.raw);
          const timed = alone !== null && (alone.end === l.raw.length || l.raw.charCodeAt(alone.end) === 32);
          expect([l.time, l.key]).toEqual(timed ? [alone.time, alone.key] : [null, null]);
          expect(l.text).toBe(timed ? l.raw.slice(alone.end + 1) : l.raw);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("plain-text levels", () => {
  const table: Array<[string, string]> = [
    ["ERROR something broke", "error"],
    ["ERR: x", "error"],
    ["FATAL x", "error"],
    ["PANIC x", "error"],
    ["CRITICAL x", "error"],
    ["WARN slow", "warn"],
    ["WARNING slow", "warn"],
    ["INFO ok", "info"],
    ["NOTICE ok", "info"],
    ["DEBUG x", "debug"],
    ["TRACE x", "debug"],
    ["[error] x", "error"],
    ["[Warn] x", "warn"],
    ["[gateway] ERROR x", "error"],
    ["[2026-01-15T08:00:00Z] [agent] WARN x", "warn"],
    ["ts=1 level=warn msg=x", "warn"],
    ['ts=1 level="error" msg=x', "error"],
    ['E1129 08:00:00.000000       1 reconciler.go:224] "x"', "error"],
    ["W0115 08:00:00.1 1 x", "warn"],
    ["I0115 08:00:00.1 1 x", "info"],
    ["INFORMATION x", "unknown"],
    ["ERRORS x", "unknown"],
    ["error handling module loaded", "unknown"],
    ["the ERROR was fine", "unknown"],
    ["    at Object.<anonymous> (/app/x.js:1:1)", "unknown"],
    ["[node-host] advertised commands", "unknown"],
  ];
  it.each(table)("%s → %s", (line, level) => expect(plainLevel(line)).toBe(level));
});

describe("classification", () => {
  const ctx: ClassifyContext = { identityKey: IDENTITY, namespaceId: "ns-a" };
  const one = (line: string) => classifyLine(line, ctx, { depth: 0 }).content;

  it("openclaw records: subsystem required below warn", () => {
    expect(one('{"level":"info","subsystem":"gw","message":"ok"}')).toEqual({
      type: "line",
      kind: "structured",
      level: "info",
      message: "ok",
      subsystem: "gw",
    });
    expect(one('{"level":"info","message":"hello from the user"}')).toEqual({
      type: "withheld",
      reason: "unrecognised_structured",
    });
    expect(one('{"level":"error","message":"boom"}')).toMatchObject({ type: "line", level: "error" });
  });

  it("generic shapes: pino, zap/logrus, tracing", () => {
    expect(one('{"level":50,"msg":"x","pid":1}')).toMatchObject({
      kind: "structured",
      level: "error",
      message: "x",
    });
    expect(one('{"level":30,"msg":"x"}')).toMatchObject({ level: "info" });
    expect(one('{"level":40,"msg":"x"}')).toMatchObject({ level: "warn" });
    expect(one('{"level":20,"msg":"x"}')).toMatchObject({ level: "debug" });
    expect(one('{"level":"warning","msg":"x"}')).toMatchObject({ level: "warn" });
    expect(
      one(
        '{"level":"INFO","target":"codex_core::x","fields":{"message":"done","tool_name":"shell","status":200}}',
      ),
    ).toEqual({
      type: "line",
      kind: "structured",
      level: "info",
      message: "done",
      subsystem: "codex_core::x",
      fields: { status: 200 },
    });
  });

  it("wrapper events", () => {
    expect(one('{"event":"runtime.startup_phase","phase":"init","outcome":"ok"}')).toEqual({
      type: "line",
      kind: "wrapper",
      level: "info",
      message: "runtime.startup_phase",
    });
    expect(one('{"event":"runtime.startup_phase","outcome":"failed"}')).toMatchObject({ level: "error" });
    expect(one('{"event":"openclaw.model_probe","code":"TIMEOUT"}')).toMatchObject({
      level: "error",
      fields: { code: "TIMEOUT" },
    });
    expect(one('{"event":"codex.model_probe","code":"READY"}')).toMatchObject({ level: "info" });
    expect(one('{"event":"user.message","text":"hi"}')).toMatchObject({ type: "withheld" });
  });

  it("keeps only allowlisted operational scalars, redacted", () => {
    const c = one(
      JSON.stringify({
        level: "warn",
        subsystem: "tools",
        message: "failed",
        url: "/cb?code=abc123",
        status: 401,
        prompt: "tell me a secret",
        headers: { authorization: "x" },
        args: ["--token", "t"],
        env: { A: "b" },
        requestId: "r-1",
        traceId: { nested: true },
      }),
    );
    expect(c).toEqual({
      type: "line",
      kind: "structured",
      level: "warn",
      message: "failed",
      subsystem: "tools",
      fields: { status: 401, url: "/cb?code=[redacted:query]", requestId: "r-1" },
    });
  });

  it("malformed, too deep, and non-object JSON", () => {
    expect(one('{"level":"info",')).toEqual({ type: "withheld", reason: "malformed" });
    expect(one(`{"a":${"[".repeat(9)}${"]".repeat(9)}}`)).toEqual({ type: "withheld", reason: "malformed" });
    expect(one(`{"a":${"[".repeat(7)}${"]".repeat(7)}, "level":"error","message":"x"}`)).toMatchObject({
      type: "line",
    });
    expect(one('["chat", "content"]')).toEqual({ type: "withheld", reason: "unrecognised_structured" });
    expect(one("[gateway] started")).toMatchObject({ type: "line", kind: "text" });
  });

  it("withholds a pretty-printed object as one run", () => {
    const run = { depth: 0 };
    const lines = [
      "{",
      '  "prompt": "secret plan",',
      '  "nested": {',
      '    "a": 1',
      "  }",
      "}",
      "INFO after",
    ];
    const out = lines.map((l) => classifyLine(l, ctx, run).content);
    expect(out.slice(0, 6).every((c) => c.type === "withheld" && c.reason === "malformed")).toBe(true);
    expect(out[6]).toMatchObject({ type: "line", level: "info" });
    expect(classifyLine('  "key": "value",', ctx, { depth: 0 }).content).toEqual({
      type: "withheld",
      reason: "malformed",
    });
  });

  it("size limits: > 32 KiB input, > 4 KiB text; messages capped at 8 KiB", () => {
    expect(one("a ".repeat(17_000))).toEqual({ type: "withheld", reason: "oversized" });
    expect(one("word ".repeat(900))).toEqual({ type: "withheld", reason: "oversized" });
    const big = one(JSON.stringify({ level: "error", message: "é".repeat(6000) }));
    expect(big.type === "line" && Buffer.byteLength(big.message) <= 8192 && big.truncated === true).toBe(
      true,
    );
    const field = one(JSON.stringify({ level: "error", message: "m", code: "c".repeat(600) }));
    expect(field.type === "line" && field.fields?.code === "c".repeat(512)).toBe(true);
  });

  it("strips ANSI escapes and controls", () => {
    expect(stripControls("\u001b[31mERROR\u001b[0m\tred\u0007 \u0085x\u007f \u001b]0;title\u0007ok")).toBe(
      "ERROR red x ok",
    );
    expect(one("\u001b[33mWARN\u001b[0m careful")).toMatchObject({ level: "warn", message: "WARN careful" });
    // DEL is the one control among the ASCII that JSON writes as itself.
    expect(one("WARN careful\u007f now")).toMatchObject({ level: "warn", message: "WARN careful now" });
  });

  it("reads no level from Object.prototype's names", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(levelFromName(name)).toBe("unknown");
      expect(one(`{"level":"${name}","msg":"x"}`)).toMatchObject({ kind: "structured", level: "unknown" });
      expect(plainLevel(`[${name}] x`)).toBe("unknown");
    }
  });

  it("strips controls from a record's strings, written as JSON escapes or as they are", () => {
    const escaped = String.raw`{"level":"error","subsystem":"g\u001b[31mw","message":"a\tb\u0007c\u0085d","method":"G\u007fET","url":"/x\n/y"}`;
    expect(one(escaped)).toEqual({
      type: "line",
      kind: "structured",
      level: "error",
      message: "a bcd",
      subsystem: "gw",
      fields: { method: "GET", url: "/x/y" },
    });
    // Controls of the line itself (DEL and C1 are valid unescaped in JSON strings) go before parsing.
    const raw = '{"level":"error","subsystem":"g\u0085w","message":"a\u007fb","code":"c\u0080d"}';
    expect(one(raw)).toEqual({
      type: "line",
      kind: "structured",
      level: "error",
      message: "ab",
      subsystem: "gw",
      fields: { code: "cd" },
    });
  });

  it("turns tabs into spaces in short, long Latin-1 and long wider text alike", () => {
    for (const text of [
      "a\tb",
      `caf\u00e9\t${"x\t".repeat(300)}\u00ff`,
      `\u{1F680}\t${"\u6e21\t".repeat(300)}`,
    ]) {
      expect(stripControls(text)).toBe(text.split("\t").join(" "));
    }
    expect(stripControls(`${"\t".repeat(40_000)}\u0007`)).toBe(" ".repeat(40_000));
  });

  it("replaces sender_id and session_key values by keyed pseudonyms", () => {
    const line =
      "gateway restart-dispatch source=cli sender_id=4711 session_key=agent:main:telegram:dm:4711 x=1";
    const c = one(line);
    expect(c.type === "line" && c.message).toBe(
      `gateway restart-dispatch source=cli sender_id=${pseudonymize(IDENTITY, "actor", "ns-a", "4711")} session_key=${pseudonymize(IDENTITY, "session", "ns-a", "agent:main:telegram:dm:4711")} x=1`,
    );
    const withheld = classifyLine(line, { identityKey: null, namespaceId: "ns-a" }, { depth: 0 }).content;
    expect(withheld.type === "line" && withheld.message).toBe(
      "gateway restart-dispatch source=cli sender_id=[withheld] session_key=[withheld] x=1",
    );
  });
});

describe("pseudonymize", () => {
  it("is the keyed HMAC over the canonical JSON, fails closed without a key", () => {
    const p = pseudonymize(IDENTITY, "actor", "ns-a", "4711");
    expect(p).toMatch(/^hmac-sha256:v1:id1:[0-9a-f]{64}$/);
    expect(pseudonymize(IDENTITY, "session", "ns-a", "4711")).not.toBe(p);
    expect(pseudonymize(IDENTITY, "actor", "ns-b", "4711")).not.toBe(p);
    expect(pseudonymize({ id: "id2", secret: Buffer.alloc(32, 1) }, "actor", "ns-a", "4711")).not.toBe(p);
    expect(pseudonymize(null, "actor", "ns-a", "4711")).toBe("[withheld]");
  });
});
