/**
 * PEM blocks across lines and pages (docs/pipeline.md §6): a block split at every line between two pages
 * never shows its body; reordered or missing times keep it masked.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineClassifier, Pem } from "../../../lib/runtime-logs/classify.ts";
import {
  buildLogPage,
  type CursorState,
  type LogRecord,
  verifyCursor,
} from "../../../lib/runtime-logs/index.ts";
import { BINDING, chunkOf, IDENTITY, KEYS, ModelLog, T0 } from "./harness.ts";

const BODY = [
  "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
  "Proc-Type: 4,ENCRYPTED",
  "",
  "7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgiz",
  "Qx9Lp0wq3=",
];
const BLOCK = ["-----BEGIN RSA PRIVATE KEY-----", ...BODY, "-----END RSA PRIVATE KEY-----"];
const SECRETS = BODY.filter((l) => l.length > 20);

function page(log: ModelLog, state: CursorState | null, nowMs: number, upTo?: number) {
  const all = log.entries;
  const view = new ModelLog(log.uid, log.restartCount);
  view.entries = upTo === undefined ? all : all.slice(0, upTo);
  const read = view.read({ tailLines: 1000, limitBytes: 1_048_576, nowNs: BigInt(nowMs) * 1_000_000n });
  return buildLogPage({
    chunk: chunkOf(view, read, 1_048_576),
    cursor: state,
    expired: false,
    view: { binding: BINDING, tailLines: 1000, source: "gateway" },
    deploymentId: "dep-1",
    requestId: "req_1",
    now: nowMs,
    keys: { cursor: KEYS, identity: IDENTITY },
    namespaceId: "ns-a",
  });
}

const messages = (records: LogRecord[]): string[] =>
  records.flatMap((r) => (r.type === "line" ? [r.message] : []));

/** Two pages split after line `k`: the second resumes with the cursor of the first. */
function twoPages(log: ModelLog, k: number): { text: string; second: string[] } {
  const now = T0 + 60_000;
  const first = page(log, null, now, k);
  const v = verifyCursor(first.cursor!, { binding: BINDING, keys: KEYS, now: now + 1000 });
  const state = v.status === "valid" ? v.state : null;
  const second = page(log, state, now + 1000);
  return { text: first.body + second.body, second: messages(second.page.records) };
}

describe("PEM across lines and pages", () => {
  it("masks the block split at every line, and the line after it shows", () => {
    const log = new ModelLog("u", 0);
    let ns = BigInt(T0) * 1_000_000n;
    log.append(ns, "INFO before");
    for (const l of [...BLOCK, "INFO after"]) {
      ns += 1_000_000n;
      log.append(ns, l);
    }
    for (let k = 1; k <= log.entries.length; k++) {
      const { text, second } = twoPages(log, k);
      for (const s of SECRETS) expect(text).not.toContain(s);
      expect(text).not.toContain("Proc-Type");
      if (k < log.entries.length) expect(second.at(-1)).toBe("INFO after");
    }
  });

  it("all block lines at one timestamp: only a strictly newer line closes a carried block", () => {
    const log = new ModelLog("u", 0);
    const ns = BigInt(T0) * 1_000_000n;
    for (const l of BLOCK) log.append(ns, l);
    log.append(ns, "INFO same instant");
    log.append(ns + 1n, "INFO newer");
    for (let k = 1; k <= log.entries.length; k++) {
      const { text, second } = twoPages(log, k);
      for (const s of SECRETS) expect(text).not.toContain(s);
      if (k < log.entries.length) expect(second.at(-1)).toBe("INFO newer");
    }
  });

  it("missing times inside a block keep it open for the rest of the view, masking PEM-shaped lines only", () => {
    const log = new ModelLog("u", 0);
    let ns = BigInt(T0) * 1_000_000n;
    log.append(ns, BLOCK[0]!);
    log.append(ns + 1n, BODY[0]!, true); // untimed body line
    ns += 1n;
    for (const l of [...BLOCK.slice(2), "ERROR after block"]) {
      ns += 1n;
      log.append(ns, l);
    }
    for (let k = 1; k <= log.entries.length; k++) {
      const { text, second } = twoPages(log, k);
      for (const s of SECRETS) expect(text).not.toContain(s);
      // Ordinary text stays visible: one bad timestamp must not blind the view.
      expect(second.filter((m) => m !== "[redacted:pem]")).toEqual(
        k < log.entries.length ? ["ERROR after block"] : [],
      );
    }
  });

  it("reordered times inside a block keep it open; ordinary text in it stays visible", () => {
    const log = new ModelLog("u", 0);
    const ns = BigInt(T0) * 1_000_000n + 10_000n;
    log.append(ns, BLOCK[0]!);
    log.append(ns + 5n, BODY[0]!);
    log.append(ns - 5n, BODY[3]!); // older than the line before it
    log.append(ns + 6n, "INFO not pem shaped");
    log.append(ns + 7n, BODY[4]!);
    const out = page(log, null, T0 + 60_000);
    for (const s of SECRETS) expect(out.body).not.toContain(s);
    expect(messages(out.page.records).slice(1)).toEqual([
      "[redacted:pem]",
      "[redacted:pem]",
      "INFO not pem shaped",
      "[redacted:pem]",
    ]);
  });

  it("an END without its BEGIN masks the PEM-shaped lines above it", () => {
    const log = new ModelLog("u", 0);
    let ns = BigInt(T0) * 1_000_000n;
    log.append(ns, "INFO before");
    for (const l of [...BLOCK.slice(1), "INFO after"]) {
      ns += 1n;
      log.append(ns, l);
    }
    const out = page(log, null, T0 + 60_000);
    for (const s of SECRETS) expect(out.body).not.toContain(s);
    expect(messages(out.page.records)).toEqual([
      "INFO before",
      ...BLOCK.slice(1).map(() => "[redacted:pem]"),
      "INFO after",
    ]);
  });
});

describe("a line's PEM shapes", () => {
  // The rules of docs/pipeline.md §6 written plainly, as the oracle.
  const MARKERLESS = /^(?:[A-Za-z0-9+/=]*$|[A-Za-z][A-Za-z0-9-]{0,63}: \S)/;
  function shapeOfText(s: string): Pem {
    const d = s.indexOf("-----");
    if (d >= 0) {
      const b = s.indexOf("-----BEGIN ", d);
      if (b >= 0) return s.indexOf("-----END ", b) > 0 ? Pem.BeginEnd : Pem.Begin;
      if (s.includes("-----END ", d)) return Pem.End;
    }
    const t = s.trim();
    return t.length <= 128 && MARKERLESS.test(t) ? Pem.Shaped : Pem.None;
  }
  function masking(shape: Pem, raw: string): Pem {
    if (shape === Pem.Begin) return shape;
    const b = raw.lastIndexOf("-----BEGIN ");
    return b >= 0 && raw.indexOf("-----END ", b) < 0 ? Pem.Begin : shape;
  }
  const piece = fc.constantFrom(
    "A",
    "z",
    "0",
    "+",
    "/",
    "=",
    ":",
    ": ",
    "-",
    " ",
    "[x]",
    "é",
    "\t",
    "\u001b-",
    "\u001b",
    "\u0007",
    "Proc-Type: 4,ENCRYPTED",
    "ERROR ",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
    '{"level":"error","message":"',
    '"}',
  );
  const line = fc.array(piece, { maxLength: 10 }).map((a) => a.join(""));

  it("are the shape of the text, and Begin for a BEGIN no END follows anywhere in the line", () => {
    fc.assert(
      fc.property(line, (raw) => {
        // A classifier per line: no pretty-printed JSON run carried from the line before.
        const classifier = new LineClassifier({ identityKey: IDENTITY, namespaceId: "ns-a" });
        classifier.line(raw, null);
        // Plain text lines take the text's shape; every line masks by the marker rule.
        if (!/^ *[{["]/.test(raw) && !/[\u0000-\u001f\u007f-\u009f]/.test(raw)) {
          expect(classifier.pem).toBe(shapeOfText(raw));
        }
        expect(classifier.maskShape).toBe(masking(classifier.pem, raw));
      }),
      { numRuns: 3000 },
    );
  });
});
