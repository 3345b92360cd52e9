/** Benchmarks keep stdout for their rows: handler log lines are taken off it and parsed. */
import { describe, expect, it } from "vitest";
import { captureStdout, parseRequestSummary } from "../../../bench/support/stdout-capture.ts";

const summary = (extra: Record<string, unknown>) =>
  JSON.stringify({
    level: "INFO",
    message: "request",
    requestId: "req_x",
    status: 200,
    durationMs: 12,
    ...extra,
  });

describe("parseRequestSummary", () => {
  it("reads the handler's summary line", () => {
    expect(parseRequestSummary(summary({ dynamoCalls: 5, clusterCalls: 4 }))).toEqual({
      status: 200,
      durationMs: 12,
      dynamoCalls: 5,
      clusterCalls: 4,
    });
    expect(parseRequestSummary(summary({ status: 503, code: "RUNTIME_LOGS_BUSY" }))).toMatchObject({
      status: 503,
      code: "RUNTIME_LOGS_BUSY",
    });
  });

  it("ignores every other line", () => {
    expect(parseRequestSummary(JSON.stringify({ message: "request failed", status: 500 }))).toBeNull();
    expect(parseRequestSummary(summary({ durationMs: "12" }))).toBeNull();
    expect(parseRequestSummary("{not json")).toBeNull();
    expect(parseRequestSummary("plain text")).toBeNull();
  });
});

describe("captureStdout", () => {
  it("hands over complete lines, joins split writes, and restores stdout even when the work fails", async () => {
    const original = process.stdout.write;
    const seen: string[] = [];
    await expect(
      captureStdout(
        (l) => seen.push(l),
        async () => {
          process.stdout.write("one\ntw");
          process.stdout.write(Buffer.from("o\nthree"));
          throw new Error("boom");
        },
      ),
    ).rejects.toThrow("boom");
    expect(seen).toEqual(["one", "two", "three"]);
    expect(process.stdout.write).toBe(original);
  });

  it("returns the work's value and calls write callbacks", async () => {
    const seen: string[] = [];
    let called = false;
    const value = await captureStdout(
      (l) => seen.push(l),
      async () => {
        await new Promise<void>((resolve) =>
          process.stdout.write("row\n", () => {
            called = true;
            resolve();
          }),
        );
        return 42;
      },
    );
    expect(value).toBe(42);
    expect(called).toBe(true);
    expect(seen).toEqual(["row"]);
  });
});
