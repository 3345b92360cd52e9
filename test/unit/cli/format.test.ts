import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeText } from "../../../cli/escape.ts";
import {
  formatFields,
  formatFieldValue,
  formatLogLine,
  formatRecordNotice,
  isIncomplete,
  ndjsonRecords,
  toLogPage,
} from "../../../cli/format/logs.ts";
import { restartLog, restartLogLines, restartsTable } from "../../../cli/format/restarts.ts";
import { formatDeployments, formatRuntime } from "../../../cli/format/runtime.ts";
import { displayTime } from "../../../cli/format/time.ts";
import { compactJson, rawElements, rawMember, rawPath } from "../../../cli/raw-json.ts";
import { displayWidth, renderTable } from "../../../cli/table.ts";
import { page, runtimeData } from "./harness.ts";

const RAW_HAZARD = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

describe("raw JSON slices", () => {
  it("finds members and elements exactly as written, whatever the whitespace", () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 8 }),
        fc.constantFrom(0, 1, 2, "\t"),
        (items, indent) => {
          const text = JSON.stringify({ meta: { x: 1 }, data: { records: items } }, null, indent);
          const records = rawPath(text, ["data", "records"]);
          expect(records).toBeDefined();
          const elements = rawElements(records!)!;
          expect(elements.length).toBe(items.length);
          elements.forEach((raw, i) => {
            expect(JSON.parse(compactJson(raw))).toEqual(JSON.parse(JSON.stringify(items[i])));
            expect(compactJson(raw)).toBe(JSON.stringify(items[i]));
          });
        },
      ),
    );
  });

  it("keeps number forms and string escapes", () => {
    const text = '{ "data" : { "records" : [ { "n" : 1.50 , "e" : 1e3, "s" : "a \\" b\\u00e9" } ] } }';
    const el = rawElements(rawPath(text, ["data", "records"])!)!;
    expect(el.map(compactJson)).toEqual(['{"n":1.50,"e":1e3,"s":"a \\" b\\u00e9"}']);
    expect(rawMember('{"a":1}', "b")).toBeUndefined();
    expect(rawMember("[1]", "a")).toBeUndefined();
    expect(rawElements('{"a":1}')).toBeUndefined();
  });
});

describe("renderTable", () => {
  it("aligns columns by display width and escapes cells", () => {
    const lines = renderTable(
      ["NAME", "STATE", "NOTE"],
      [
        ["a", "running", "x"],
        ["日本語", null, "evil\u202E\nline"],
      ],
    );
    expect(lines).toEqual([
      "NAME    STATE    NOTE",
      "a       running  x",
      "日本語  -        evil\\u{202E}\\x0Aline",
    ]);
  });

  it("puts the second column at the same display offset on every row", () => {
    const cell = fc
      .string({ unit: "grapheme", maxLength: 12 })
      .map((s) => (s.trim() === "" ? "x" : s.trim()));
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell, cell), { minLength: 1, maxLength: 6 }), (rows) => {
        const lines = renderTable(["A", "B", "C"], rows);
        expect(lines.every((l) => !RAW_HAZARD.test(l))).toBe(true);
        const firsts = ["A", ...rows.map((r) => escapeText(r[0]))];
        const offsets = lines.map((l, i) => {
          expect(l.startsWith(firsts[i]!)).toBe(true);
          const spaces = /^ */.exec(l.slice(firsts[i]!.length))![0].length;
          return displayWidth(firsts[i]!) + spaces;
        });
        expect(new Set(offsets).size).toBe(1);
        expect(offsets[0]).toBe(Math.max(...firsts.map(displayWidth)) + 2);
      }),
      { numRuns: 300 },
    );
  });
});

describe("log lines", () => {
  it("prints time (UTC, ms), level once, subsystem, message and sorted fields; no kind column", () => {
    const text = formatLogLine({
      type: "line",
      time: "2026-11-29T12:00:00.120000000Z",
      kind: "structured",
      level: "warn",
      subsystem: "gateway/ws",
      message: "slow reply",
      fields: { status: 503, code: "E_UPSTREAM", url: "https://x/a b", durationMs: 12.5, traceId: "" },
    });
    expect(text).toBe(
      '2026-11-29T12:00:00.120Z WARN  [gateway/ws] slow reply code=E_UPSTREAM durationMs=12.5 status=503 traceId="" url="https://x/a b"',
    );
  });

  it("drops a leading level word that repeats the record's level, never prose or another level", () => {
    const at = (message: string, level = "info") =>
      formatLogLine({ type: "line", time: null, kind: "text", level, message }).slice(25);
    expect(at("INFO heartbeat 3")).toBe("INFO  heartbeat 3");
    expect(at("[info] heartbeat")).toBe("INFO  heartbeat");
    expect(at("warning: disk 91%", "warn")).toBe("WARN  disk 91%");
    expect(at("Error connecting to db", "error")).toBe("ERROR Error connecting to db");
    expect(at("WARN heartbeat", "info")).toBe("INFO  WARN heartbeat");
    expect(at("INFO")).toBe("INFO  INFO");
  });

  it("shortens pseudonyms in messages and fields to hmac:<8 hex>…, and NDJSON keeps them whole", () => {
    const id = `hmac-sha256:v1:local-identity-key-20261201-ef437cda:${"0123abcd".repeat(8)}`;
    const rec = {
      type: "line",
      time: null,
      kind: "text",
      level: "info",
      message: `message from ${id}`,
      fields: { sender_id: id },
    };
    expect(formatLogLine(rec).slice(25)).toBe("INFO  message from hmac:0123abcd… sender_id=hmac:0123abcd…");
    const p = page([rec]);
    expect(ndjsonRecords(toLogPage(p), JSON.stringify(p))).toEqual([JSON.stringify(rec)]);
  });

  it("marks untimed, unknown-level and truncated lines", () => {
    expect(
      formatLogLine({
        type: "line",
        time: null,
        kind: "text",
        level: "unknown",
        message: "m",
        truncated: true,
      }),
    ).toBe(`${"-".padEnd(24)} -     m [truncated]`);
  });

  it("quotes values that are not one plain word", () => {
    expect(formatFieldValue("abc")).toBe("abc");
    expect(formatFieldValue("a=b")).toBe('"a=b"');
    expect(formatFieldValue('say "hi"')).toBe('"say \\"hi\\""');
    expect(formatFieldValue("123")).toBe('"123"');
    expect(formatFieldValue("true")).toBe('"true"');
    expect(formatFieldValue(123)).toBe("123");
    expect(formatFieldValue(null)).toBe("null");
    expect(formatFields({ b: 1, a: 2, B: 3 })).toBe("B=3 a=2 b=1");
  });

  it("never prints a raw hazard, whatever the record holds", () => {
    const str = fc.string({ unit: "binary", maxLength: 30 });
    fc.assert(
      fc.property(
        str,
        str,
        str,
        fc.dictionary(str, fc.oneof(str, fc.integer())),
        (time, message, sub, fields) => {
          const out = formatLogLine({
            type: "line",
            time,
            kind: "text",
            level: "info",
            message,
            subsystem: sub,
            fields,
          });
          expect(RAW_HAZARD.test(out)).toBe(false);
          const notice = formatRecordNotice({ type: "gap", time, reason: sub, remedy: message });
          expect(RAW_HAZARD.test(notice!)).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("turns gaps and withheld records into notices", () => {
    expect(
      formatRecordNotice({
        type: "gap",
        time: "T",
        reason: "stream_replaced",
        remedy: "Read with previous.",
      }),
    ).toBe("gap at T (stream_replaced): Read with previous.");
    expect(formatRecordNotice({ type: "withheld", time: null, count: 3, reason: "malformed" })).toBe(
      "withheld 3 lines (malformed); they are counted, never shown",
    );
    expect(formatRecordNotice({ type: "line" })).toBeUndefined();
  });

  it("knows when a page is incomplete", () => {
    expect(isIncomplete(toLogPage(page([{ type: "line", message: "x" }])))).toBe(false);
    expect(isIncomplete(toLogPage(page([{ type: "gap", reason: "truncated" }])))).toBe(true);
    expect(isIncomplete(toLogPage(page([], { withheld: 2 })))).toBe(true);
    expect(isIncomplete(toLogPage(page([], { stream: null, cursor: null })))).toBe(true);
    expect(() => toLogPage({ records: "nope" })).toThrow();
  });

  it("emits NDJSON from the raw text, preserving number forms", () => {
    const raw =
      '{"records":[ {"type":"withheld","time":null,"count":2.0,"reason":"oversized"} ,{"type":"line","message":"\u202E"}]}';
    const p = toLogPage(JSON.parse(raw));
    expect(ndjsonRecords(p, raw)).toEqual([
      '{"type":"withheld","time":null,"count":2.0,"reason":"oversized"}',
      '{"type":"line","message":"\\u202e"}',
    ]);
    // Without raw text, each record is re-serialized (and still escaped).
    expect(ndjsonRecords(p, undefined)[1]).toBe('{"type":"line","message":"\\u202e"}');
  });
});

describe("runtime and deployments text", () => {
  it("renders Pods, sources and Events tables", () => {
    const text = formatRuntime(runtimeData("d3")).join("\n");
    expect(text).toContain("Deployment d3");
    expect(text).toMatch(
      /ROLE\s+POD\s+CLUSTER\s+PHASE\s+CONTAINER\s+READY\s+STATE\s+RESTARTS\s+LAST TERMINATION/,
    );
    expect(text).toMatch(
      /gateway\s+gw-0\s+control\s+Running\s+gateway\s+yes\s+running\s+2\s+OOMKilled exit=137 at 2026-11-29T10:59:59.000Z/,
    );
    expect(text).toMatch(/SOURCE\s+KIND\s+AVAILABLE\s+PODS\s+RETENTION/);
    expect(text).toMatch(/gateway\s+container\s+yes\s+gw-0\/gateway/);
    expect(text).toMatch(
      /gw-0\s+Warning\s+BackOff\s+gateway\s+3\s+2026-11-29T10:59:00.000Z\s+Back-off restarting/,
    );
  });

  it("shows a completed init container as completed, never as not ready", () => {
    const data = runtimeData("d3") as { pods: Record<string, unknown>[] };
    const pod = data.pods[0]!;
    pod.containers = [
      {
        name: "workspace-init",
        init: true,
        ready: false,
        state: "terminated",
        reason: "Completed",
        restartCount: 0,
        lastTermination: null,
      },
      ...(pod.containers as unknown[]),
    ];
    const row = formatRuntime(data).find((l) => l.includes("workspace-init"));
    expect(row).toMatch(/workspace-init \(init\)\s+-\s+terminated \(Completed\)\s+0/);
  });

  it("says when there is nothing", () => {
    const text = formatRuntime({
      deploymentId: "d3",
      observedAt: "T",
      pods: [],
      sources: [],
      restarts: [],
    }).join("\n");
    expect(text).toContain("(no Pods)");
    expect(text).toContain("(no Events)");
  });

  it("marks the active deployment", () => {
    const lines = formatDeployments([
      { deploymentId: "d4", revision: 4, createdAt: "T4", active: false },
      { deploymentId: "d3", revision: 3, createdAt: "T3", active: true },
    ]);
    expect(lines[0]).toMatch(/^DEPLOYMENT\s+REVISION\s+CREATED\s+ACTIVE$/);
    expect(lines[1]).toMatch(/^d4\s+4\s+T4\s+-$/);
    expect(lines[2]).toMatch(/^d3\s+3\s+T3\s+yes$/);
  });
});

describe("one time format", () => {
  const ONE_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
  /** Every RFC 3339-looking time in a text, so a second form anywhere is seen. */
  const timesIn = (text: string) =>
    text.match(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g) ?? [];

  it("prints UTC with milliseconds, cutting extra digits and converting offsets", () => {
    expect(displayTime("2026-11-29T11:00:00Z")).toBe("2026-11-29T11:00:00.000Z");
    expect(displayTime("2026-11-29T11:00:00.5Z")).toBe("2026-11-29T11:00:00.500Z");
    expect(displayTime("2026-11-29T11:00:00.999999999Z")).toBe("2026-11-29T11:00:00.999Z");
    expect(displayTime("2026-11-29T13:00:00.25+02:00")).toBe("2026-11-29T11:00:00.250Z");
    expect(displayTime("not a time")).toBe("not a time");
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_102_444_799 }),
        fc.stringMatching(/^\d{0,9}$/),
        (seconds, fraction) => {
          const base = new Date(seconds * 1000).toISOString().slice(0, 19);
          const shown = displayTime(`${base}${fraction === "" ? "" : `.${fraction}`}Z`);
          expect(shown).toMatch(ONE_FORM);
          expect(shown).toBe(`${base}.${fraction.padEnd(3, "0").slice(0, 3)}Z`);
        },
      ),
    );
  });

  it("uses that form in the runtime, deployment, restart and notice texts, whatever the server sent", () => {
    const data = runtimeData("d3") as Record<string, unknown>;
    const texts = [
      ...formatRuntime({
        ...data,
        observedAt: "2026-11-29T11:00:00.123456789Z",
        restarts: [restartRecord(["dispatch", "completed"], { detectedAt: "2026-11-29T11:00:01Z" })],
      }),
      ...formatDeployments([
        { deploymentId: "d3", revision: 3, createdAt: "2026-11-28T11:00:00Z", active: true },
      ]),
      ...restartLog([
        restartRecord(["dispatch", "signal-received", "completed"], {
          previous: { pid: 41, finishedAt: "2026-11-29T11:00:00.5Z" },
          next: { pid: 42, startedAt: "2026-11-29T11:00:02.123456789Z" },
        }),
      ]).lines,
      formatRecordNotice({ type: "gap", time: "2026-11-29T11:59:00Z", reason: "r", remedy: "x" }) ?? "",
      formatRecordNotice({ type: "withheld", time: "2026-11-29T11:59:00.1Z", count: 1, reason: "r" }) ?? "",
    ].join("\n");
    const times = timesIn(texts);
    expect(times.length).toBeGreaterThan(8);
    for (const t of times) expect(t).toMatch(ONE_FORM);
  });
});

const ACTOR = `hmac-sha256:v1:k1:${"a".repeat(64)}`;
const SESSION = `hmac-sha256:v1:k1:${"b".repeat(64)}`;

function restartRecord(phases: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    restartId: "01J",
    pod: "gw-0",
    container: "gateway",
    scope: "container-restart",
    previous: {
      podUid: "u",
      container: "gateway",
      restartCount: 0,
      pod: "gw-0",
      startedAt: "T0",
      finishedAt: "T1",
      pid: 41,
    },
    next: {
      podUid: "u",
      container: "gateway",
      restartCount: 1,
      pod: "gw-0",
      startedAt: "T2",
      finishedAt: null,
      pid: 42,
    },
    termination: { exitCode: 143, signal: 15, reason: "Error", message: null },
    trigger: { category: "operator-restart", source: "cli", confidence: "confirmed" },
    actor: { kind: "human-operator", actorRef: ACTOR, sessionRef: SESSION, channel: "telegram" },
    evidence: { phases, eventReasons: [], restartedAtAnnotation: false },
    detectedAt: "T3",
    detectedBy: "status-read",
    ...extra,
  };
}

describe("restarts", () => {
  it("tables the records", () => {
    const lines = restartsTable([restartRecord([])]);
    expect(lines[0]).toMatch(
      /^TIME\s+POD\s+CONTAINER\s+SCOPE\s+CATEGORY\s+CONFIDENCE\s+ACTOR\s+EXIT\/SIGNAL\/REASON$/,
    );
    expect(lines[1]).toMatch(
      /^T1\s+gw-0\s+gateway\s+container-restart\s+operator-restart\s+confirmed\s+human-operator \(telegram\)\s+Error exit=143 signal=15$/,
    );
  });

  it("prints one three-phase line per phase seen, with pseudonyms shortened as in log lines", () => {
    const lines = restartLogLines(restartRecord(["dispatch", "signal-received", "completed"]));
    const ids = "sender_id=hmac:aaaaaaaa… session_key=hmac:bbbbbbbb…";
    expect(lines).toEqual([
      `T1 gateway restart-dispatch source=cli ${ids} old_pid=41 pod=gw-0 container=gateway`,
      `T1 gateway restart-signal-received signal=SIGTERM source=cli ${ids} old_pid=41 pod=gw-0 container=gateway`,
      `T2 gateway restart-completed signal=boot source=cli ${ids} old_pid=41 new_pid=42 pod=gw-0 container=gateway`,
    ]);
    expect(restartLogLines(restartRecord(["completed"]))).toHaveLength(1);
  });

  it("prints the agent's action and method, and never old_pid equal to new_pid", () => {
    const r = restartRecord(["dispatch", "signal-received", "completed"], {
      trigger: {
        category: "operator-restart",
        source: "cli",
        action: "restart",
        method: "sigterm",
        confidence: "confirmed",
      },
      previous: { pid: 1, finishedAt: "T1" },
      next: { pid: 1, startedAt: "T2" },
    });
    const [dispatch, signal, completed] = restartLogLines(r);
    expect(dispatch).toContain(" action=restart method=sigterm old_pid=1 ");
    expect(signal).toContain(" action=restart old_pid=1 ");
    expect(signal).not.toContain("method=");
    expect(completed).toContain(" action=restart new_pid=1 ");
    expect(completed).not.toContain("old_pid=");
  });

  it("lists records oldest first and counts those without agent lines", () => {
    const newer = restartRecord(["dispatch"], { previous: { finishedAt: "T9" } });
    const older = restartRecord(["dispatch"]);
    const { lines, withoutPhases } = restartLog([newer, restartRecord([]), older]);
    expect(lines.map((l) => l.split(" ")[0])).toEqual(["T1", "T9"]);
    expect(withoutPhases).toBe(1);
  });

  it("quotes and escapes hostile values", () => {
    const [l] = restartLogLines(
      restartRecord(["dispatch"], { trigger: { category: "x", source: "a b\u202E", confidence: "unknown" } }),
    );
    expect(l).toContain('source="a b\\u{202E}"');
  });
});

describe("display width", () => {
  it("counts wide characters, emoji sequences and combining marks as a terminal does", () => {
    expect(displayWidth("abc")).toBe(3);
    expect(displayWidth("日本語")).toBe(6);
    expect(displayWidth("👍🏽")).toBe(2);
    expect(displayWidth("👨‍👩‍👧")).toBe(2);
    expect(displayWidth("🇫🇷")).toBe(2);
    expect(displayWidth("e\u0301")).toBe(1);
    // Cells are escaped first: a zero-width joiner shows as text, and the width counts what is shown.
    const lines = renderTable(
      ["A", "B"],
      [
        ["👍🏽🇫🇷", "x"],
        ["ab", "y"],
        ["a\u200db", "z"],
      ],
    );
    expect(lines).toEqual([
      `A${" ".repeat(11)}B`,
      `👍🏽🇫🇷${" ".repeat(8)}x`,
      `ab${" ".repeat(10)}y`,
      "a\\u{200D}b  z",
    ]);
  });
});
