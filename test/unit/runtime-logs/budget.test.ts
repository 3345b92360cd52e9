/**
 * Page budget (docs/pipeline.md §7): heavy JSON escaping, long Unicode and large cursors stay within
 * 512 KiB, every page advances, and polling delivers every line exactly once.
 */
import { describe, expect, it } from "vitest";
import {
  buildLogPage,
  type CursorState,
  type LogRecord,
  PAGE_BUDGET_BYTES,
  planLogRead,
  verifyCursor,
} from "../../../lib/runtime-logs/index.ts";
import { BINDING, chunkOf, IDENTITY, KEYS, ModelLog, T0 } from "./harness.ts";

const POD = `${"p".repeat(240)}-gateway-0`;

function drain(log: ModelLog, minLevel?: "error"): { records: LogRecord[]; pages: number; sizes: number[] } {
  let token: string | null = null;
  const records: LogRecord[] = [];
  const sizes: number[] = [];
  let pages = 0;
  const now = T0 + 1_800_000;
  for (; pages < 200; pages++) {
    let state: CursorState | null = null;
    if (token !== null) {
      const v = verifyCursor(token, { binding: BINDING, keys: KEYS, now });
      if (v.status !== "valid") throw new Error("cursor should be valid");
      state = v.state;
    }
    const plan = planLogRead({
      cursor: state,
      pod: POD,
      podUid: log.uid,
      restartCount: 0,
      previous: false,
      tailLines: 1000,
      now,
    });
    const read = log.read({ ...plan, limitBytes: 1_048_576, nowNs: BigInt(now) * 1_000_000n });
    const out = buildLogPage({
      chunk: chunkOf(log, read, 1_048_576, log, POD),
      cursor: state,
      expired: false,
      view:
        minLevel === undefined
          ? { binding: BINDING, tailLines: 1000, source: "gateway" }
          : { binding: BINDING, tailLines: 1000, source: "gateway", minLevel },
      deploymentId: BINDING.deploymentId,
      requestId: "req_00000000-0000-4000-8000-000000000000",
      now,
      keys: { cursor: KEYS, identity: IDENTITY },
      namespaceId: BINDING.namespaceId,
    });
    sizes.push(Buffer.byteLength(out.body));
    expect(JSON.parse(out.body).data).toEqual(out.page);
    expect(out.cursor!.length).toBeLessThanOrEqual(2048);
    const lines = out.page.records.filter((r) => r.type !== "gap");
    records.push(...out.page.records);
    token = out.cursor;
    if (lines.length === 0 && !out.page.truncated) break;
  }
  return { records, pages, sizes };
}

function fill(text: (i: number) => string, n: number, sameTime = false): ModelLog {
  const log = new ModelLog("uid-1", 0);
  let ns = BigInt(T0) * 1_000_000n;
  for (let i = 0; i < n; i++) {
    if (!sameTime) ns += 1_000_000_000n;
    log.append(ns, text(i));
  }
  return log;
}

describe("page budget", () => {
  it("a read the overlap fills stalls, then skips with a gap instead of looping", () => {
    // 1 MiB written within the 2 s overlap: the resumed read cannot get past it.
    const log = new ModelLog("uid-1", 0);
    let ns = BigInt(T0) * 1_000_000n;
    for (let i = 0; i < 300; i++) {
      ns += 1_000_000n;
      log.append(ns, `ERROR ${i} ${"z".repeat(3800)}`);
    }
    const { records, sizes } = drain(log);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    expect(records.some((r) => r.type === "gap" && r.reason === "window_exceeded")).toBe(true);
    const seen = records.flatMap((r) => (r.type === "line" ? [r.message.split(" ")[1]] : []));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("heavy escaping: quotes and backslashes double in JSON", () => {
    const log = fill((i) => `ERROR ${i} ${'"\\'.repeat(1900)}`, 300);
    const { records, sizes } = drain(log);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    expect(sizes.length).toBeGreaterThan(2);
    const lines = records.filter((r) => r.type === "line");
    expect(lines.length).toBe(300);
    expect(new Set(lines.map((r) => (r.type === "line" ? r.message.split(" ")[1] : ""))).size).toBe(300);
    expect(records.some((r) => r.type === "gap" && r.reason === "truncated")).toBe(true);
  });

  it("long Unicode (4-byte characters) and a large cursor", () => {
    const log = fill((i) => `WARN ${i} ${"🚀é".repeat(650)}`, 400);
    const { records, sizes } = drain(log);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    expect(records.filter((r) => r.type === "line").length).toBe(400);
  });

  it("a group of identical lines at one timestamp larger than a page advances exactly once", () => {
    const log = fill(() => `INFO ${"x".repeat(3000)}`, 250, true);
    const { records, sizes } = drain(log);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    expect(sizes.length).toBeGreaterThan(2);
    expect(records.filter((r) => r.type === "line").length).toBe(250);
    expect(records.filter((r) => r.type === "gap" && r.reason !== "truncated")).toEqual([]);
  });

  it("the level filter applies after signing: hidden lines are not delivered later", () => {
    const log = fill((i) => `${i % 3 === 0 ? "ERROR" : "INFO"} ${i} ${"y".repeat(3000)}`, 300);
    const { records } = drain(log, "error");
    const lines = records.filter((r) => r.type === "line");
    expect(lines.length).toBe(100);
    expect(lines.every((r) => r.type === "line" && r.level === "error")).toBe(true);
  });
});
