/**
 * R10: generated secrets in every grammar of docs/redaction.md go through the
 * whole page (`buildLogPage`, plain and structured lines, random `minLevel` and page budgets),
 * download rendering, the cursor and the Event-text path: no canary in any byte. Then `secretlint`
 * (preset-recommend, AWS ID scan on, comment filtering off) is an independent oracle: whatever it
 * finds in the generated input, it must not find in our output.
 */
import fc from "fast-check";
import { runSecretLint } from "secretlint";
import { afterAll, describe, expect, it } from "vitest";
import type { Level } from "../../../lib/domain.ts";
import { redactEventText, redactText } from "../../../lib/redact/index.ts";
import { buildLogPage, renderDownload } from "../../../lib/runtime-logs/index.ts";
import { BINDING, chunkOf, IDENTITY, KEYS, ModelLog, T0 } from "../runtime-logs/harness.ts";
import { anyShape, catalogShape, leaks, type Shape } from "./shapes.ts";

const counts = { cases: 0, comparisons: 0, inputFindings: 0 };
afterAll(() => {
  console.log(
    `R10 adversarial redaction: ${counts.cases} generated cases, ${counts.comparisons} oracle comparisons (${counts.inputFindings} secretlint findings in the input)`,
  );
});

const LEVELS = ["ERROR", "WARN", "INFO", "DEBUG", ""];
const MIN_LEVELS: Array<Level | undefined> = [undefined, "error", "warn", "info", "debug"];

/** A log line carrying a shape: plain text with a level, or a structured record (message and url). */
function asLogLine(shape: Shape, pick: number): string {
  const level = LEVELS[pick % LEVELS.length]!;
  if (pick % 3 === 0) {
    return JSON.stringify({
      level: ["error", "warn", "info"][pick % 3],
      subsystem: "tools",
      message: shape.text,
      url: `/cb?x=${shape.text}`,
    });
  }
  return level === "" ? shape.text : `${level} ${shape.text}`;
}

describe("R10: generated secrets through the page, download, minLevel and Event text", () => {
  it("no canary in any byte a client receives", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(anyShape, fc.nat()), { minLength: 1, maxLength: 25 }),
        fc.nat(),
        fc.boolean(),
        (items, pick, withKey) => {
          counts.cases += items.length;
          const shapes = items.map(([s]) => s);
          const log = new ModelLog("uid-r10", 0);
          let ns = BigInt(T0) * 1_000_000n;
          for (const [shape, p] of items) {
            ns += 1_000_000n;
            log.append(ns, asLogLine(shape, p));
          }
          const now = Number(ns / 1_000_000n) + 1000;
          const read = log.read({ tailLines: 1000, limitBytes: 1_048_576, nowNs: ns });
          const minLevel = MIN_LEVELS[pick % MIN_LEVELS.length];
          const view = { binding: BINDING, tailLines: 1000, source: "gateway" as const };
          const out = buildLogPage({
            chunk: chunkOf(log, read, 1_048_576),
            cursor: null,
            expired: false,
            view: minLevel === undefined ? view : { ...view, minLevel },
            deploymentId: BINDING.deploymentId,
            requestId: "req_00000000-0000-4000-8000-000000000000",
            now,
            keys: { cursor: KEYS, identity: withKey ? IDENTITY : null },
            namespaceId: BINDING.namespaceId,
            maxBytes: pick % 2 === 0 ? 524_288 : 16_000 + (pick % 20_000),
          });
          const bytes = [
            out.body,
            out.cursor,
            renderDownload({ agentId: BINDING.agentId }, out.page),
            ...shapes.map((s) => redactEventText(`Error: container exited: ${s.text}`)),
          ].join("\n");
          const found = leaks(shapes, bytes);
          expect(found, JSON.stringify(found.slice(0, 3))).toEqual([]);
        },
      ),
      { numRuns: 120 },
    );
  });
});

/** secretlint's findings per line of `content` (1-based line → found secret texts). */
async function secretlintFindings(content: string): Promise<Map<number, string[]>> {
  const result = await runSecretLint({
    cliOptions: { cwd: process.cwd(), stdinContent: content, stdinFileName: "corpus.txt" },
    engineOptions: {
      formatter: "json",
      color: false,
      maskSecrets: false,
      configFileJSON: {
        rules: [
          {
            id: "@secretlint/secretlint-rule-preset-recommend",
            rules: [
              { id: "@secretlint/secretlint-rule-aws", options: { enableIDScanRule: true } },
              { id: "@secretlint/secretlint-rule-filter-comments", disabled: true },
            ],
          },
        ],
      },
    },
  });
  if (result.stderr !== null) throw result.stderr;
  const parsed = JSON.parse(result.stdout ?? "[]") as Array<{
    messages: Array<{ loc: { start: { line: number } }; data?: Record<string, unknown>; message: string }>;
  }>;
  const byLine = new Map<number, string[]>();
  for (const file of parsed) {
    for (const m of file.messages) {
      const list = byLine.get(m.loc.start.line) ?? [];
      list.push(JSON.stringify(m.data ?? m.message));
      byLine.set(m.loc.start.line, list);
    }
  }
  return byLine;
}

/**
 * Scanners read `[redacted:userinfo]` inside a URL as `user:password`; in our output it is a marker,
 * so it is normalized before the oracle looks (a finding that is only our own marker is none).
 */
const normalizeMarkers = (s: string): string => s.replaceAll("[redacted:userinfo]", "REDACTED");

describe("R10: secretlint as a differential oracle", () => {
  it("finds nothing in our output of what it finds in the input", { timeout: 120_000 }, async () => {
    const seed = Date.now() % 2 ** 31;
    const corpus = [
      ...fc.sample(anyShape, { numRuns: 600, seed }),
      ...fc.sample(catalogShape, { numRuns: 600, seed: seed + 1 }),
    ];
    counts.cases += corpus.length;
    const input = corpus.map((s) => s.text);
    const output = input.map((t) => normalizeMarkers(redactText(t)));
    const [before, after] = await Promise.all([
      secretlintFindings(input.join("\n")),
      secretlintFindings(output.join("\n")),
    ]);
    const failures: string[] = [];
    for (const [line, found] of before) {
      counts.inputFindings += found.length;
      const still = after.get(line) ?? [];
      for (const f of found) {
        counts.comparisons++;
        if (still.includes(f)) failures.push(`${f} in ${output[line - 1]}`);
      }
      // Anything the oracle still reports on that line must be our own marker, never text of the input.
      for (const f of still)
        if (!f.includes("[redacted:") && !f.includes("REDACTED"))
          failures.push(`${f} in ${output[line - 1]}`);
    }
    expect(failures, `seed ${seed}`).toEqual([]);
    // The corpus must give the oracle something to find, or the comparison proves nothing.
    expect(counts.inputFindings).toBeGreaterThan(300);
    // Our own canaries are gone from the output too.
    expect(leaks(corpus, output.join("\n"))).toEqual([]);
  });
});
