import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isServiceError } from "../../../lib/api/errors.ts";
import {
  deploymentPathSchema,
  LOG_QUERY_PARAMETERS,
  parseLogQuery,
  parsePath,
  requireNoQuery,
  safeName,
} from "../../../lib/api/schemas.ts";
import { isRfc3339Utc } from "../../../lib/rfc3339.ts";
import { failureOf } from "../../support/failure.ts";

const NOW = Date.parse("2026-11-29T12:00:00Z");

describe("log query", () => {
  it("applies the contract's parameters and defaults", () => {
    expect(parseLogQuery({ source: "gateway" }, "logs", NOW)).toEqual({ source: "gateway", download: false });
    expect(
      parseLogQuery(
        {
          source: "agent",
          pod: "gw-0",
          container: "workspace-init",
          previous: "true",
          tailLines: "1000",
          sinceSeconds: "86400",
          minLevel: "warn",
        },
        "logs",
        NOW,
      ),
    ).toEqual({
      source: "agent",
      pod: "gw-0",
      container: "workspace-init",
      previous: true,
      tailLines: 1000,
      sinceSeconds: 86400,
      minLevel: "warn",
      download: false,
    });
    expect(parseLogQuery({ source: "gateway", download: "true" }, "logs", NOW).download).toBe(true);
    expect(parseLogQuery({ source: "gateway", tailLines: "5" }, "download", NOW)).toMatchObject({
      download: true,
    });
  });

  it.each([
    [{}, "query.source", "required"],
    [{ source: "nope" }, "query.source", "invalid_value"],
    [{ source: "gateway", tailLines: "0" }, "query.tailLines", "invalid_value"],
    [{ source: "gateway", tailLines: "01" }, "query.tailLines", "invalid_value"],
    [{ source: "gateway", tailLines: "+5" }, "query.tailLines", "invalid_value"],
    [{ source: "gateway", tailLines: "1001" }, "query.tailLines", "invalid_value"],
    [{ source: "gateway", sinceSeconds: "86401" }, "query.sinceSeconds", "invalid_value"],
    [{ source: "gateway", sinceTime: "2026-02-30T00:00:00Z" }, "query.sinceTime", "invalid_value"],
    [{ source: "gateway", sinceTime: "2026-11-29T11:00:00+01:00" }, "query.sinceTime", "invalid_value"],
    [{ source: "gateway", sinceTime: "2026-11-29T12:00:01Z" }, "query.sinceTime", "in_future"],
    [
      { source: "gateway", sinceTime: "2026-11-29T11:00:00Z", sinceSeconds: "5" },
      "query.sinceTime",
      "conflict",
    ],
    [{ source: "gateway", cursor: "v1.a.b", download: "true" }, "query.cursor", "conflict"],
    [{ source: "gateway", cursor: "v1.a.b", sinceSeconds: "5" }, "query.sinceSeconds", "conflict"],
    [{ source: "gateway", pod: "Upper" }, "query.pod", "invalid_value"],
    [{ source: "gateway", container: "Upper" }, "query.container", "invalid_value"],
    [{ source: "gateway", container: "a.b" }, "query.container", "invalid_value"],
    [{ source: "gateway", container: "-init" }, "query.container", "invalid_value"],
    [{ source: "gateway", container: "c".repeat(64) }, "query.container", "invalid_value"],
    [{ source: "gateway", container: "" }, "query.container", "invalid_value"],
    [{ source: "gateway", previous: "yes" }, "query.previous", "invalid_value"],
    [{ source: "gateway", tailLine: "3" }, "query.tailLine", "unknown_parameter"],
    [{ source: "gateway", follow: "true" }, "query.?", "unknown_parameter"],
  ])("rejects %j at %s", (query, path, code) => {
    const error = failureOf(() => parseLogQuery(query, "logs", NOW));
    expect(error.code).toBe("INVALID_REQUEST");
    expect(error.details).toContainEqual({ path, code });
  });

  it("rejects cursor and download on the download route", () => {
    expect(
      failureOf(() => parseLogQuery({ source: "gateway", cursor: "v1.a.b" }, "download", NOW)).code,
    ).toBe("INVALID_REQUEST");
  });

  it("answers sandbox with pod, container or previous as RUNTIME_LOGS_POD_INVALID", () => {
    expect(failureOf(() => parseLogQuery({ source: "sandbox", container: "x" }, "logs", NOW)).code).toBe(
      "RUNTIME_LOGS_POD_INVALID",
    );
    expect(failureOf(() => parseLogQuery({ source: "sandbox", pod: "x" }, "logs", NOW)).code).toBe(
      "RUNTIME_LOGS_POD_INVALID",
    );
    expect(failureOf(() => parseLogQuery({ source: "sandbox", previous: "true" }, "logs", NOW)).code).toBe(
      "RUNTIME_LOGS_POD_INVALID",
    );
  });

  it("never reflects arbitrary parameter names", () => {
    const error = failureOf(() => parseLogQuery({ source: "gateway", "<script>": "1" }, "logs", NOW));
    expect(JSON.stringify(error.details)).not.toContain("<script>");
  });

  it("only ever answers with a contract error, on any query (R6)", () => {
    const key = fc.oneof(fc.constantFrom(...LOG_QUERY_PARAMETERS), fc.string());
    fc.assert(
      fc.property(fc.dictionary(key, fc.string({ unit: "grapheme", maxLength: 300 })), (query) => {
        try {
          parseLogQuery(query, "logs", NOW);
        } catch (error) {
          expect(isServiceError(error)).toBe(true);
          if (isServiceError(error)) {
            expect(error.status).toBe(400);
            expect((error.details ?? []).length).toBeLessThanOrEqual(32);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("paths", () => {
  it("accepts contract IDs and rejects everything else with 400", () => {
    expect(
      parsePath(deploymentPathSchema, { namespaceId: "acme", agentId: "support", deploymentId: "d3" }),
    ).toEqual({
      namespaceId: "acme",
      agentId: "support",
      deploymentId: "d3",
    });
    for (const bad of ["", "-a", "a-", "A", "a".repeat(65), "a/b", "a b", "é"]) {
      const error = failureOf(() =>
        parsePath(deploymentPathSchema, { namespaceId: bad, agentId: "support", deploymentId: "d3" }),
      );
      expect(error.code).toBe("INVALID_REQUEST");
      expect(error.details).toContainEqual({ path: "path.namespaceId", code: expect.any(String) });
    }
  });

  it("status routes take no query", () => {
    expect(() => requireNoQuery(undefined)).not.toThrow();
    expect(failureOf(() => requireNoQuery({ x: "1" })).details).toEqual([
      { path: "query.?", code: "unknown_parameter" },
    ]);
  });

  it("checks calendar dates", () => {
    expect(isRfc3339Utc("2024-02-29T00:00:00.123456789Z")).toBe(true);
    expect(isRfc3339Utc("2025-02-29T00:00:00Z")).toBe(false);
    expect(isRfc3339Utc("2025-01-01T24:00:00Z")).toBe(false);
  });

  it("reflects an unknown parameter's name only when it is a near miss of a contract parameter", () => {
    // Independent oracle: the plain recursive edit distance, bounded at 3.
    const distance = (a: string, b: string, budget = 3): number => {
      if (budget < 0) return 99;
      if (a === "" || b === "") return a.length + b.length;
      if (a[0] === b[0]) return distance(a.slice(1), b.slice(1), budget);
      return (
        1 +
        Math.min(
          distance(a.slice(1), b, budget - 1),
          distance(a, b.slice(1), budget - 1),
          distance(a.slice(1), b.slice(1), budget - 1),
        )
      );
    };
    const nearMiss = (key: string) =>
      LOG_QUERY_PARAMETERS.some((name) => distance(key.toLowerCase(), name.toLowerCase()) <= 2);
    const typo = fc
      .tuple(
        fc.constantFrom(...LOG_QUERY_PARAMETERS),
        fc.array(fc.tuple(fc.nat(40), fc.string({ minLength: 1, maxLength: 1 })), { maxLength: 2 }),
      )
      .map(([name, edits]) =>
        edits.reduce(
          (s: string, [at, c]) => s.slice(0, at % (s.length + 1)) + c + s.slice(at % (s.length + 1)),
          name as string,
        ),
      );
    fc.assert(
      fc.property(
        fc.oneof(typo, fc.string({ maxLength: 40 }), fc.stringMatching(/^[A-Za-z]{8,40}$/)),
        (key) => {
          const echoed = safeName(key);
          expect(echoed).toBe(key.length <= 32 && nearMiss(key) ? key : "?");
        },
      ),
      { numRuns: 2000 },
    );
    // Letters-only provider keys (a random AWS key ID can draw no digit) are never reflected.
    expect(safeName("AKIAHMKJLXJZDHBWADYL")).toBe("?");
    expect(safeName("tailLine")).toBe("tailLine");
  });
});
