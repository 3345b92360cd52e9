/**
 * straightLogQuery and straightPath against their definitions, schemas.ts's zod schemas: on
 * generated queries and path parameters (valid values, values just outside a rule, unknown keys,
 * missing keys), whatever the straight code accepts the schema accepts with the same output, and
 * every query the schema accepts the straight code accepts too (so zod is left only the errors).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { straightLogQuery, straightPath } from "../../../lib/api/query-parse.ts";
import {
  agentPathSchema,
  deploymentPathSchema,
  downloadQuerySchema,
  logQuerySchema,
} from "../../../lib/api/schemas.ts";

const anyString = fc.string({ maxLength: 12 });
const time = fc
  .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) })
  .map((ms) => new Date(ms).toISOString());
const count = fc.oneof(
  fc.integer({ min: 0, max: 100_000 }).map(String),
  fc.constantFrom(
    "1",
    "1000",
    "1001",
    "86400",
    "86401",
    "999999",
    "1000000",
    "01",
    "+5",
    "-1",
    "1e3",
    " 5",
    "5.0",
  ),
);
const bool = fc.constantFrom("true", "false", "TRUE", "1", "");
const label = fc.oneof(
  fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?$/),
  fc.constantFrom("", "-a", "a-", "A", "a".repeat(63), "a".repeat(64), "a.b", "a_b"),
);
const pod = fc.oneof(
  fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?(\.[a-z0-9]{1,4}){0,2}$/),
  fc.constantFrom(
    "",
    "a..b",
    ".a",
    "a.",
    "A",
    `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`,
  ),
  fc.constantFrom(`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(62)}`),
);
const cursor = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._-]{1,40}$/),
  fc.constantFrom("", "a b", "a/b", "a=", "x".repeat(2048), "x".repeat(2049)),
);

const values = {
  source: fc.oneof(fc.constantFrom("gateway", "agent", "sandbox"), fc.constantFrom("Gateway", "", "other")),
  pod,
  container: label,
  previous: bool,
  tailLines: count,
  sinceSeconds: count,
  sinceTime: fc.oneof(
    time,
    time.map((t) => `${t.slice(0, 19)}Z`),
    fc.constantFrom("2026-02-30T00:00:00Z", "2026-01-01T00:00:00+00:00", "2026-01-01", "yesterday"),
  ),
  minLevel: fc.oneof(
    fc.constantFrom("error", "warn", "info", "debug"),
    fc.constantFrom("trace", "ERROR", ""),
  ),
  cursor,
  download: bool,
  tailLine: anyString,
  "<x>": anyString,
};

/** Values every rule accepts, so a good share of the queries are valid ones. */
const valid = {
  source: fc.constantFrom("gateway", "agent", "sandbox"),
  pod: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?(\.[a-z0-9]{1,4}){0,2}$/),
  container: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?$/),
  previous: fc.constantFrom("true", "false"),
  tailLines: fc.integer({ min: 1, max: 1000 }).map(String),
  sinceSeconds: fc.integer({ min: 1, max: 86_400 }).map(String),
  sinceTime: time,
  minLevel: fc.constantFrom("error", "warn", "info", "debug"),
  cursor: fc.stringMatching(/^[A-Za-z0-9._-]{1,40}$/),
  download: fc.constantFrom("true", "false"),
};

const query = fc
  .oneof(
    fc.record(values, { requiredKeys: [] }),
    fc.record(valid, { requiredKeys: ["source"] }),
    // what the download route takes
    fc
      .record(
        { ...valid, cursor: fc.constant(undefined), download: fc.constant(undefined) },
        { requiredKeys: ["source"] },
      )
      .map(({ cursor: _c, download: _d, ...q }) => q),
    // valid but for one parameter, which takes a value on or just past a rule's edge
    ...Object.entries(values).map(([key, arb]) =>
      fc.record({ ...valid, [key]: arb }, { requiredKeys: ["source", key] as (keyof typeof valid)[] }),
    ),
  )
  .map((q) => q as Record<string, string>);

describe("straightLogQuery", () => {
  for (const [route, schema] of [
    ["logs", logQuerySchema],
    ["download", downloadQuerySchema],
  ] as const) {
    it(`accepts exactly what the ${route} schema accepts, with its output`, () => {
      let accepted = 0;
      fc.assert(
        fc.property(query, (q) => {
          const ours = straightLogQuery(q, route);
          const theirs = schema.safeParse(q);
          expect(ours !== null).toBe(theirs.success);
          if (ours !== null) {
            accepted++;
            expect(ours).toStrictEqual(theirs.data);
          }
        }),
        { numRuns: 3000 },
      );
      expect(accepted).toBeGreaterThan(30);
    });
  }

  it("leaves a missing query and non-string values to zod", () => {
    expect(straightLogQuery(undefined, "logs")).toBeNull();
    expect(straightLogQuery({}, "logs")).toBeNull();
    expect(straightLogQuery({ source: "gateway", pod: undefined }, "logs")).toBeNull();
    expect(straightLogQuery({ source: "gateway" }, "logs")).toEqual({ source: "gateway" });
  });
});

describe("straightPath", () => {
  const id = fc.oneof(
    fc.stringMatching(/^[a-z0-9]([a-z0-9_-]{0,8}[a-z0-9])?$/),
    fc.constantFrom("", "-a", "a_", "A", "a".repeat(64), "a".repeat(65), "a.b"),
  );
  const good = fc.stringMatching(/^[a-z0-9]([a-z0-9_-]{0,8}[a-z0-9])?$/);
  const params = fc
    .oneof(
      fc.record({ namespaceId: id, agentId: id, deploymentId: id, other: id }, { requiredKeys: [] }),
      fc.record({ namespaceId: good, agentId: good }),
      fc.record({ namespaceId: good, agentId: good, deploymentId: good }),
    )
    .map((p) => p as Record<string, string>);
  for (const [name, schema] of [
    ["agent", agentPathSchema],
    ["deployment", deploymentPathSchema],
  ] as const) {
    it(`accepts exactly what the ${name} path schema accepts, with its output`, () => {
      let accepted = 0;
      fc.assert(
        fc.property(params, (p) => {
          const ours = straightPath(Object.keys(schema.shape), p);
          const theirs = schema.safeParse(p);
          expect(ours !== null).toBe(theirs.success);
          if (ours !== null) {
            accepted++;
            expect(ours).toStrictEqual(theirs.data);
          }
        }),
        { numRuns: 2000 },
      );
      expect(accepted).toBeGreaterThan(10);
    });
  }
});
