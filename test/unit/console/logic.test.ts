/** The console's pure parts: the row cap and filter, times and restart summaries, API helpers. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError, attachmentFilename, logQuery, parseRetryAfter } from "../../../console/api.ts";
import { readConfig } from "../../../console/config.ts";
import { hourMinuteUtc, restartSummary, rowTime } from "../../../console/format.ts";
import { errorMessage } from "../../../console/messages.ts";
import { matches, type Row, RowBuffer, searchText } from "../../../console/rows.ts";
import { LEVELS, type Level, type LineRecord, type LogRecord } from "../../../console/types.ts";
import { restartRecord } from "./fixtures.ts";

const line = (message: string, level: Level = "info"): LineRecord => ({
  type: "line",
  time: "2026-01-01T00:00:00.123456789Z",
  kind: "text",
  level,
  message,
});
const row = (record: LogRecord, view = 0): Row<number> => ({ record, haystack: searchText(record), view });

describe("RowBuffer", () => {
  it("keeps the newest `cap` rows in order and returns exactly the dropped ones", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 20 }),
        (cap, batches) => {
          const buffer = new RowBuffer<number>(cap);
          let next = 0;
          const dropped: number[] = [];
          for (const size of batches) {
            const rows = Array.from({ length: size }, () => row(line("x"), next++));
            dropped.push(...buffer.push(rows).map((r) => r.view));
          }
          const kept = buffer.all().map((r) => r.view);
          const all = Array.from({ length: next }, (_, i) => i);
          expect(kept).toEqual(all.slice(Math.max(0, next - cap)));
          expect(dropped).toEqual(all.slice(0, Math.max(0, next - cap)));
          expect(buffer.dropped).toBe(dropped.length);
        },
      ),
    );
  });

  it("replace resets the dropped count and returns every old row", () => {
    const buffer = new RowBuffer<number>(2);
    buffer.push([row(line("a"), 1), row(line("b"), 2), row(line("c"), 3)]);
    expect(buffer.dropped).toBe(1);
    const gone = buffer.replace([row(line("d"), 4)]);
    expect(gone.map((r) => r.view)).toEqual([2, 3]);
    expect(buffer.dropped).toBe(0);
    expect(buffer.size).toBe(1);
  });
});

describe("filter", () => {
  it("hides lines by level or text, never gaps or withheld rows", () => {
    const gap: LogRecord = { type: "gap", time: null, reason: "window_exceeded", remedy: "Read again." };
    const withheld: LogRecord = { type: "withheld", time: null, count: 2, reason: "malformed" };
    const none = { levels: new Set<Level>(), text: "zzz" };
    expect(matches(gap, searchText(gap), none)).toBe(true);
    expect(matches(withheld, searchText(withheld), none)).toBe(true);
    const l = line("Upstream FAILED", "error");
    expect(matches(l, searchText(l), { levels: new Set(LEVELS), text: "failed" })).toBe(true);
    expect(matches(l, searchText(l), { levels: new Set(["warn"]), text: "" })).toBe(false);
    expect(matches(l, searchText(l), { levels: new Set(LEVELS), text: "nope" })).toBe(false);
  });

  it("searches subsystem and fields too", () => {
    const l: LineRecord = { ...line("m"), subsystem: "channels", fields: { status: 502 } };
    expect(searchText(l)).toContain("channels");
    expect(searchText(l)).toContain("status=502");
  });
});

describe("format", () => {
  it("formats times in UTC without guessing", () => {
    expect(hourMinuteUtc("2026-11-29T14:02:59.999999999Z")).toBe("14:02 UTC");
    expect(hourMinuteUtc("2026-11-29T15:02:00+01:00")).toBe("14:02 UTC");
    expect(hourMinuteUtc(null)).toBe("time unknown");
    expect(rowTime("2026-11-29T08:39:21.1Z")).toBe("2026-11-29 08:39:21.100");
    expect(rowTime("2026-11-29T09:39:21.123456+01:00")).toBe("2026-11-29 08:39:21.123");
    expect(rowTime(null)).toBe("—");
  });

  it("summarises restarts with the newest attribution, else the unattributed termination", () => {
    const container = {
      name: "gateway",
      init: false,
      state: "running" as const,
      reason: null,
      ready: true,
      restartCount: 3,
      startedAt: null,
      lastTermination: {
        reason: "OOMKilled",
        exitCode: 137,
        signal: null,
        finishedAt: "2026-01-01T10:00:00Z",
      },
    };
    const rec = (category: "oom" | "liveness-probe" | "crash", at: string, pod = "p") => {
      const r = restartRecord({ pod, container: "gateway", detectedAt: at });
      return {
        ...r,
        trigger: { ...r.trigger, category },
        next: { ...r.next, startedAt: at },
      };
    };
    expect(
      restartSummary(
        container,
        [
          rec("oom", "2026-01-01T13:00:00Z"),
          rec("liveness-probe", "2026-01-01T14:02:00Z"),
          rec("crash", "2026-01-01T15:00:00Z", "other"),
        ],
        "p",
      ),
    ).toBe("restarted 3×; last: liveness-probe, 14:02 UTC");
    expect(restartSummary(container, [], "p")).toBe(
      "restarted 3×; last: OOMKilled (not attributed), 10:00 UTC",
    );
    expect(restartSummary({ ...container, restartCount: 0 }, [], "p")).toBeNull();
  });
});

describe("api helpers", () => {
  it("builds the closed log query (no pod or previous for the sandbox)", () => {
    expect(
      logQuery({ source: "gateway", pod: "gw-0", container: null, previous: true }, null).toString(),
    ).toBe("source=gateway&pod=gw-0&previous=true");
    expect(
      logQuery(
        { source: "agent", pod: "h-0", container: "workspace-init", previous: false },
        null,
      ).toString(),
    ).toBe("source=agent&pod=h-0&container=workspace-init");
    expect(
      logQuery({ source: "sandbox", pod: "x", container: "c", previous: true }, "v1.a.b").toString(),
    ).toBe("source=sandbox&cursor=v1.a.b");
  });

  it("reads Retry-After as whole seconds ≥ 1", () => {
    expect(parseRetryAfter("3")).toBe(3);
    expect(parseRetryAfter("0")).toBe(1);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT")).toBeNull();
  });

  it("takes the attachment filename, reduced to safe characters", () => {
    expect(attachmentFilename('attachment; filename="support-d2-gateway-gw-0.log"', "f")).toBe(
      "support-d2-gateway-gw-0.log",
    );
    expect(attachmentFilename('attachment; filename="../../etc/passwd"', "f")).toBe("_.._etc_passwd");
    expect(attachmentFilename(null, "fallback.log")).toBe("fallback.log");
    fc.assert(
      fc.property(fc.string(), (name) => {
        expect(attachmentFilename(`attachment; filename="${name}"`, "f")).toMatch(
          /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/,
        );
      }),
    );
  });

  it("says the code and request ID with every error", () => {
    const text = errorMessage(new ApiError(403, "FORBIDDEN", "req_1", null));
    expect(text).toContain("not allowed");
    expect(text).toContain("HTTP 403 · FORBIDDEN · request req_1");
    expect(errorMessage(new ApiError(429, "RUNTIME_LOGS_RATE_LIMITED", null, 4), 4)).toContain(
      "Retrying in 4 s",
    );
    // An unknown code is not echoed as if it were ours.
    expect(errorMessage(new ApiError(502, "<b>x</b>", null, null))).toBe(
      "The request failed (HTTP 502). (HTTP 502)",
    );
  });
});

describe("config", () => {
  it("honours ?poll only on loopback", () => {
    expect(readConfig({ hostname: "127.0.0.1", search: "?poll=200&status=300" })).toEqual({
      local: true,
      pollMs: 200,
      statusMs: 300,
    });
    expect(readConfig({ hostname: "d111.cloudfront.net", search: "?poll=200&status=300" })).toEqual({
      local: false,
      pollMs: 2000,
      statusMs: 15_000,
    });
    expect(readConfig({ hostname: "localhost", search: "?poll=abc" }).pollMs).toBe(2000);
  });
});
