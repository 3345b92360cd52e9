/**
 * `occ agent logs --follow` against a fake API: cursor and query discipline, 429/504 handling,
 * one new view on a rejected cursor, and clean interruption.
 */
import { describe, expect, it } from "vitest";
import { base, fail, fakeApiSuite, line, occ, ok, page, type Route } from "./harness.ts";

const api = fakeApiSuite();

const LOGS = `${base("d3")}/runtime/logs`;
const F = ["agent", "logs", "support", "--deployment", "d3", "--source", "gateway", "--follow"];
const queries = () => api.requests.filter((r) => r.path === LOGS).map((r) => Object.fromEntries(r.query));

/** Pages with cursors c1, c2…, each with one line named after the poll. */
const pages: Route = (_req, n) => ok(page([line(`poll ${n}`)], { cursor: `c${n}` }));

/** Stops the follow (as Ctrl-C would) at the sleep with this index. */
const stopAt =
  (index: number) =>
  (i: number, fire: (sig: NodeJS.Signals) => void): void => {
    if (i === index) fire("SIGINT");
  };

describe("follow", () => {
  it("polls with the cursor and the same tail and level, never re-sending --since; Ctrl-C exits 0", async () => {
    api.routes.set(LOGS, pages);
    const r = await occ(api, [...F, "--since", "10m", "--tail", "20", "--level", "info"], {
      onSleep: stopAt(2),
    });
    expect(r.code).toBe(0);
    expect(queries()).toEqual([
      { source: "gateway", tailLines: "20", sinceSeconds: "600", minLevel: "info" },
      { source: "gateway", tailLines: "20", minLevel: "info", cursor: "c1" },
      { source: "gateway", tailLines: "20", minLevel: "info", cursor: "c2" },
    ]);
    expect(r.sleeps).toEqual([2000, 2000, 2000]);
    expect(
      r.stdout
        .trimEnd()
        .split("\n")
        .map((l) => l.split(" ").at(-1)),
    ).toEqual(["1", "2", "3"]);
  });

  it("takes the injected poll interval (no environment hook), but never shortens retry waits", async () => {
    api.routes.set(LOGS, (req, n) =>
      n === 2
        ? fail(429, "RUNTIME_LOGS_RATE_LIMITED", "Too many requests.", { "retry-after": "1" })
        : n === 3
          ? fail(504, "RUNTIME_LOGS_TIMEOUT", "The request took too long and was stopped.")
          : pages(req, n),
    );
    const r = await occ(api, F, { onSleep: stopAt(3), pollIntervalMs: 50 });
    expect(r.sleeps).toEqual([50, 2000, 2000, 50]);
    api.reset();
    api.routes.set(LOGS, pages);
    // The old test hook is gone: the environment cannot change the interval.
    const hooked = await occ(api, F, { onSleep: stopAt(1), env: { OCC_POLL_INTERVAL_MS: "50" } });
    expect(hooked.sleeps).toEqual([2000, 2000]);
  });

  it("waits max(interval, Retry-After) on 429 and carries on with the same cursor", async () => {
    api.routes.set(LOGS, (_req, n) =>
      n === 2
        ? fail(429, "RUNTIME_LOGS_RATE_LIMITED", "Too many requests.", { "retry-after": "7" })
        : n === 3
          ? fail(429, "RUNTIME_LOGS_RATE_LIMITED", "Too many requests.", { "retry-after": "1" })
          : ok(page([line(`poll ${n}`)], { cursor: `c${n}` })),
    );
    const r = await occ(api, F, { onSleep: stopAt(3) });
    expect(r.code).toBe(0);
    expect(r.sleeps).toEqual([2000, 7000, 2000, 2000]);
    expect(queries().map((q) => q.cursor)).toEqual([undefined, "c1", "c1", "c1"]);
    expect(r.stderr).toContain("occ: rate limited; retrying in 7s");
    expect(r.stderr).toContain("occ: rate limited; retrying in 2s");
  });

  it("retries a 504 after the interval", async () => {
    api.routes.set(LOGS, (_req, n) =>
      n === 2
        ? fail(504, "RUNTIME_LOGS_TIMEOUT", "The request took too long and was stopped.")
        : pages(_req, n),
    );
    const r = await occ(api, F, { onSleep: stopAt(2) });
    expect(r.code).toBe(0);
    expect(queries().map((q) => q.cursor)).toEqual([undefined, "c1", "c1"]);
    expect(r.stderr).toContain("timed out; retrying in 2s");
  });

  it("starts one new view (without --since) when the cursor is rejected", async () => {
    api.routes.set(LOGS, (req, n) =>
      req.query.get("cursor") === "c1"
        ? fail(400, "RUNTIME_LOGS_CURSOR_INVALID", "The cursor is invalid for this request.")
        : pages(req, n),
    );
    const r = await occ(api, [...F, "--since", "5m"], { onSleep: stopAt(2) });
    expect(r.code).toBe(0);
    expect(queries()).toEqual([
      { source: "gateway", sinceSeconds: "300" },
      { source: "gateway", cursor: "c1" },
      { source: "gateway" },
      { source: "gateway", cursor: "c3" },
    ]);
    expect(r.stderr).toContain("rejected the cursor; starting a new view");
  });

  it("ends with exit 1 when the new view's cursor is rejected too", async () => {
    api.routes.set(LOGS, (req, n) =>
      req.query.has("cursor")
        ? fail(
            400,
            "RUNTIME_LOGS_CURSOR_INVALID",
            "The cursor is invalid for this request. Start a new view without a cursor.",
          )
        : pages(req, n),
    );
    const r = await occ(api, F);
    expect(r.code).toBe(1);
    expect(api.requests).toHaveLength(4);
    expect(r.stderr).toContain("HTTP 400 RUNTIME_LOGS_CURSOR_INVALID: The cursor is invalid");
  });

  it("ends with exit 1 on any other error", async () => {
    api.routes.set(LOGS, (req, n) =>
      n === 2 ? fail(403, "FORBIDDEN", "You are not allowed to perform this action.") : pages(req, n),
    );
    const r = await occ(api, F);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("HTTP 403 FORBIDDEN");
    expect(r.stdout).toContain("poll 1");
  });

  it("notices gaps, and says 'no running Pod' once while waiting for one", async () => {
    api.routes.set(LOGS, (_req, n) => {
      if (n <= 3) return ok(page([], { stream: null, cursor: null }));
      return ok(
        page(
          [{ type: "gap", time: null, reason: "stream_replaced", remedy: "Read previous." }, line("back")],
          { cursor: "cx" },
        ),
      );
    });
    const r = await occ(api, F, { onSleep: stopAt(3) });
    expect(r.code).toBe(0);
    expect(r.stderr.match(/no running Pod/g)).toHaveLength(1);
    expect(r.stderr).toContain("gap (stream_replaced): Read previous.");
    expect(r.stdout).toContain("back");
    expect(queries().map((q) => q.cursor)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("aborts the request in flight on Ctrl-C and exits 0; a second signal exits at once", async () => {
    const control: { fire?: (sig: NodeJS.Signals) => void } = {};
    api.routes.set(LOGS, (req, n) => {
      if (n === 1) return pages(req, n);
      // Poll 2 hangs until the client gives up; interrupt it while it is in flight.
      setTimeout(() => control.fire?.("SIGTERM"), 20);
      return new Promise(() => {});
    });
    const started = Date.now();
    const r = await occ(api, F, { control });
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.exitedNow).toBeUndefined();
    expect(r.stdout).toContain("poll 1");

    api.reset();
    api.routes.set(LOGS, pages);
    const r2 = await occ(api, F, {
      onSleep: (i, fire) => {
        if (i === 0) {
          fire("SIGINT");
          fire("SIGINT");
        }
      },
    });
    expect(r2.exitedNow).toBe(130);
  });

  it("prints NDJSON while following, gaps included", async () => {
    api.routes.set(LOGS, (_req, n) =>
      ok(
        page([{ type: "gap", time: null, reason: "truncated", remedy: "r" }, line(`p${n}`)], {
          cursor: `c${n}`,
        }),
      ),
    );
    const r = await occ(api, [...F, "-o", "json"], { onSleep: stopAt(1) });
    const lines = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.map((l) => l.type)).toEqual(["gap", "line", "gap", "line"]);
    expect(r.code).toBe(0);
  });
});
