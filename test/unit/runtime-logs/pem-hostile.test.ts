/**
 * PEM against an adversary (docs/pipeline.md §6): a BEGIN marker opens a block wherever it sits and
 * whatever happens to its line (withheld as malformed or oversized, filtered by level), the body
 * stays masked on this page and the next whatever the split, and an uncertain block (missing or
 * reordered times) masks only PEM-shaped or untimed lines, so ordinary text stays visible.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Level } from "../../../lib/domain.ts";
import {
  buildLogPage,
  type CursorState,
  type LogRecord,
  verifyCursor,
} from "../../../lib/runtime-logs/index.ts";
import { BINDING, chunkOf, IDENTITY, KEYS, ModelLog, T0 } from "./harness.ts";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const bodyLine = fc.array(fc.constantFrom(...B64), { minLength: 8, maxLength: 64 }).map((cs) => cs.join(""));

/** Ways a BEGIN line reaches the pipeline. */
const BEGIN_LINES: Array<{ name: string; line: string; minLevel?: Level }> = [
  { name: "plain", line: "-----BEGIN EC PRIVATE KEY-----" },
  { name: "Go %+v (malformed JSON)", line: "{Name:tls Key:-----BEGIN EC PRIVATE KEY-----" },
  { name: "oversized", line: `${"z".repeat(40_000)} -----BEGIN RSA PRIVATE KEY-----` },
  { name: "level-filtered", line: "DEBUG loading key -----BEGIN PRIVATE KEY-----", minLevel: "error" },
  {
    name: "inside JSON",
    line: '{"level":"info","msg":"cert","subsystem":"tls","x":"-----BEGIN PRIVATE KEY-----',
  },
];

function page(log: ModelLog, upTo: number, state: CursorState | null, now: number, minLevel?: Level) {
  const view = new ModelLog(log.uid, log.restartCount);
  view.entries = log.entries.slice(0, upTo);
  const read = view.read({
    tailLines: 1000,
    limitBytes: 1_048_576,
    nowNs: BigInt(now) * 1_000_000n,
    ...(state?.lastTime ? { sinceTime: `${state.lastTime.slice(0, 19)}Z` } : {}),
  });
  return buildLogPage({
    chunk: chunkOf(view, read, 1_048_576),
    cursor: state,
    expired: false,
    view: { binding: BINDING, tailLines: 1000, source: "gateway", ...(minLevel ? { minLevel } : {}) },
    deploymentId: "dep-1",
    requestId: "req_1",
    now,
    keys: { cursor: KEYS, identity: IDENTITY },
    namespaceId: "ns-a",
  });
}

const stateOf = (token: string, now: number): CursorState | null => {
  const v = verifyCursor(token, { binding: BINDING, keys: KEYS, now });
  return v.status === "valid" ? v.state : null;
};

const shown = (records: LogRecord[]) => records.flatMap((r) => (r.type === "line" ? [r.message] : []));

describe("PEM against an adversary", () => {
  it("a BEGIN line in any form masks the body on this page and the next, split anywhere", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BEGIN_LINES),
        fc.array(bodyLine, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        fc.nat(),
        (begin, body, withEnd, splitSeed) => {
          const log = new ModelLog("u", 0);
          let ns = BigInt(T0) * 1_000_000n;
          const add = (l: string) => {
            ns += 1_000_000n;
            log.append(ns, l);
          };
          add("INFO before");
          add(begin.line);
          for (const b of body) add(b);
          if (withEnd) add("-----END EC PRIVATE KEY-----}");
          add("INFO after");
          const k = 1 + (splitSeed % log.entries.length);
          const now = T0 + 60_000;
          const first = page(log, k, null, now, begin.minLevel);
          const second = page(
            log,
            log.entries.length,
            stateOf(first.cursor!, now),
            now + 1000,
            begin.minLevel,
          );
          const bytes = first.body + second.body;
          for (const b of body) expect(bytes).not.toContain(b);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("missing and reordered times keep the block open; timed ordinary text stays visible", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            kind: fc.constantFrom("body", "text"),
            body: bodyLine,
            time: fc.constantFrom("ok", "missing", "older"),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.nat(),
        (items, splitSeed) => {
          const log = new ModelLog("u", 0);
          let ns = BigInt(T0) * 1_000_000n + 1_000_000_000n;
          log.append(ns, "-----BEGIN PRIVATE KEY-----");
          // The block stays open until a timed ordinary line closes it while its end is certain;
          // once a time is missing or reordered, it stays open for the view.
          let open = true;
          let uncertain = false;
          const maskedExpected: string[] = [];
          const visibleExpected: string[] = [];
          items.forEach((it, i) => {
            ns += 1_000_000n;
            const t = it.time === "older" ? ns - 500_000_000n : ns;
            const line = it.kind === "body" ? `K${i}K${it.body}` : `INFO ordinary text ${i}`;
            log.append(t, line, it.time === "missing");
            if (!open) return;
            if (it.time !== "ok") uncertain = true;
            if (it.kind === "body") maskedExpected.push(line);
            else if (!uncertain) open = false;
            else if (it.time === "ok") visibleExpected.push(line);
          });
          // A reordered line older than a page's frontier is dropped by the resumed read before the
          // pipeline sees it; split pages only where every time moves forward or is missing.
          const split = !items.some((x) => x.time === "older");
          const k = split ? 1 + (splitSeed % log.entries.length) : log.entries.length;
          const now = T0 + 60_000;
          const first = page(log, k, null, now);
          const second = page(log, log.entries.length, stateOf(first.cursor!, now), now + 1000);
          const bytes = first.body + second.body;
          for (const b of maskedExpected) expect(bytes).not.toContain(b);
          // Once uncertain, ordinary timed text is never blinded (it shows on one of the pages).
          const all = [...shown(first.page.records), ...shown(second.page.records)];
          for (const v of visibleExpected) expect(all).toContain(v);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("Go's %+v output: the block opens on the withheld line and closes at END", () => {
    const log = new ModelLog("u", 0);
    let ns = BigInt(T0) * 1_000_000n;
    for (const l of [
      "{Name:tls Key:-----BEGIN EC PRIVATE KEY-----",
      "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oFpFfcCHUE1RoAoGCCqGSM49",
      "AwEHoUQDQgAE",
      "-----END EC PRIVATE KEY-----}",
      "INFO served",
    ]) {
      ns += 1_000_000n;
      log.append(ns, l);
    }
    const out = page(log, log.entries.length, null, T0 + 60_000);
    expect(out.body).not.toContain("AwEHoUQDQgAE");
    expect(out.page.records.map((r) => (r.type === "line" ? r.message : r.type))).toEqual([
      "withheld",
      "[redacted:pem]",
      "[redacted:pem]",
      "[redacted:pem]",
      "INFO served",
    ]);
  });
});
