import fc from "fast-check";
import { describe, it } from "vitest";
import { jsonBytes, jsonStringBytes } from "../../../lib/runtime-logs/json-size.ts";

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
});
