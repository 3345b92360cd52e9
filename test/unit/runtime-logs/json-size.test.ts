import fc from "fast-check";
import { describe, it } from "vitest";
import { LineClassifier } from "../../../lib/runtime-logs/classify.ts";
import { jsonBytes, jsonStringBytes, recordBytes } from "../../../lib/runtime-logs/json-size.ts";
import { parseTimestamp } from "../../../lib/runtime-logs/time.ts";
import type { LogRecord } from "../../../lib/runtime-logs/types.ts";

const bytesOf = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), "utf8");

describe("jsonBytes", () => {
  it("matches the UTF-8 size of JSON.stringify for any string (escapes, astral, lone surrogates)", () => {
    const tricky = fc.constantFrom(
      "\ud800",
      "\udfff",
      "\u0000",
      "\u001f",
      "\u007f",
      '"',
      "\\",
      "\n",
      "é",
      "🚀",
    );
    const str = fc
      .array(fc.oneof(fc.string({ unit: "binary" }), tricky), { maxLength: 8 })
      .map((a) => a.join(""));
    fc.assert(fc.property(str, (s) => jsonStringBytes(s) === bytesOf(s)));
  });

  it("matches JSON.stringify for record-shaped values", () => {
    const value = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const record = fc.record(
      {
        type: fc.constant("line"),
        time: fc.option(fc.string()),
        message: fc.string({ unit: "binary" }),
        fields: fc.dictionary(fc.string({ unit: "binary" }), value, { maxKeys: 5 }),
        count: fc.nat(),
        truncated: fc.boolean(),
        absent: fc.constant(undefined),
        list: fc.array(fc.oneof(value, fc.constant(undefined)), { maxLength: 4 }),
      },
      { requiredKeys: ["type", "message"] },
    );
    fc.assert(fc.property(record, (r) => jsonBytes(r) === bytesOf(r)));
  });

  it("recordBytes matches JSON.stringify for every record shape (unicode, escapes, big numbers)", () => {
    const tricky = fc.constantFrom(
      "\ud800",
      "\udc00",
      "\u0000",
      "\u001f",
      "\u007f",
      "\u2028",
      '"',
      "\\",
      "é",
      "🚀",
      "\ud83d",
    );
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.array(fc.oneof(fc.string({ unit: "grapheme" }), tricky), { maxLength: 8 }).map((a) => a.join("")),
    );
    const time = fc.option(text, { nil: null });
    const fieldValue = fc.oneof(
      text,
      fc.double(),
      fc.integer(),
      fc.constantFrom(
        Number.MAX_VALUE,
        Number.MIN_VALUE,
        1e21,
        -0,
        2 ** 53 + 2,
        Number.NaN,
        Number.POSITIVE_INFINITY,
      ),
      fc.boolean(),
    );
    const line = fc.record(
      {
        type: fc.constant("line" as const),
        time,
        kind: fc.constantFrom("text" as const, "structured" as const, "wrapper" as const, "sandbox" as const),
        level: fc.constantFrom(
          "debug" as const,
          "info" as const,
          "warn" as const,
          "error" as const,
          "unknown" as const,
        ),
        message: text,
        subsystem: text,
        fields: fc.dictionary(text, fieldValue, { maxKeys: 6 }),
        truncated: fc.boolean(),
        origin: fc.constantFrom("sandbox" as const, "gateway" as const),
        format: fc.constant("ocsf" as const),
      },
      { requiredKeys: ["type", "time", "kind", "level", "message"] },
    );
    const withheld = fc.record({
      type: fc.constant("withheld" as const),
      time,
      count: fc.nat(),
      reason: fc.constantFrom("unrecognised_structured" as const, "oversized" as const, "malformed" as const),
    });
    const gapRec = fc.record({
      type: fc.constant("gap" as const),
      time,
      reason: fc.constantFrom("truncated" as const, "clock_step" as const),
      remedy: text,
    });
    const record: fc.Arbitrary<LogRecord> = fc.oneof(line, withheld, gapRec);
    fc.assert(
      fc.property(record, (r) => recordBytes(r) === bytesOf(r)),
      { numRuns: 2000 },
    );
  });
});

describe("line records as the classifier builds them", () => {
  it("are measured as JSON.stringify sizes them (escapes, unicode, truncation, fields, numbers)", () => {
    const piece = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.constantFrom(
        '"',
        "\\",
        "\t",
        "\u0007",
        "\u007f",
        "\u001b[31m",
        "\u0085",
        "ERROR [gateway] ok: ~done~",
        "é",
        "🚀",
        "\ud800",
        "\u2028",
        "\\u0007",
        "password=hunter2",
        "Bearer abcdefghijklmnopqrstuvwxyz0123456789",
        "x".repeat(600),
        "é".repeat(3000),
      ),
    );
    // Redaction more than doubles this 4 KiB text: its message is cut at 8 KiB.
    const expands = "password=x ".repeat(370);
    const str = fc.oneof(
      fc.array(piece, { maxLength: 5 }).map((a) => a.join("")),
      fc.constant(expands),
    );
    const scalar = fc.oneof(
      str,
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom(1e21, -0, 2 ** 53 + 2, 5e-324),
    );
    const level = fc.oneof(
      fc.constantFrom("error", "WARN", "info", "debug", "fatal"),
      fc.integer({ min: 10, max: 60 }),
    );
    const object = fc.record(
      {
        level,
        message: str,
        msg: str,
        subsystem: str,
        event: fc.constantFrom("runtime.startup_phase", "codex.model_probe", "other"),
        outcome: fc.constantFrom("failed", "ok"),
        code: scalar,
        status: scalar,
        url: str,
        method: str,
        durationMs: scalar,
        traceId: str,
        session_key: str,
        target: str,
        fields: fc.record(
          { message: str, traceId: scalar, spanId: scalar, run_id: str },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    );
    const line = fc.oneof(
      str,
      object.map((o) => JSON.stringify(o)),
    );
    const time = fc.option(
      fc
        .tuple(
          fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }),
          fc.nat(999_999_999),
        )
        .map(
          ([d, ns]) =>
            parseTimestamp(`${d.toISOString().slice(0, 19)}.${String(ns).padStart(9, "0")}Z`)!.time,
        ),
      { nil: null },
    );
    const classifier = new LineClassifier({
      identityKey: { id: "i", secret: Buffer.alloc(32, 1) },
      namespaceId: "ns",
    });
    fc.assert(
      fc.property(line, time, (text, t) => {
        const rec = classifier.line(text, t);
        return rec.type === "withheld" || classifier.bytes === bytesOf(rec);
      }),
      { numRuns: 3000 },
    );
  });
});
