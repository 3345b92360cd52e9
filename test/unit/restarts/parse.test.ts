import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FIELD_CAPS,
  formatRestartLine,
  MAX_RESTART_LINE_BYTES,
  parseRestartLine,
  type RestartLine,
  readRestartLine,
  readRestartLines,
} from "../../../lib/restarts/parse.ts";

const KUBELET = "2026-11-29T12:00:00.120000000Z";

describe("parseRestartLine: the three phases", () => {
  it("reads a dispatch with every field", () => {
    const line = parseRestartLine(
      `${KUBELET} [2026-11-29T12:00:00.100Z] gateway restart-dispatch source=slash-command sender_id=u123 session_key=agent:main:telegram:dm:42 action=restart method=SIGUSR1 old_pid=7`,
    );
    expect(line).toEqual({
      phase: "dispatch",
      kubeletTime: KUBELET,
      agentTime: "2026-11-29T12:00:00.100Z",
      source: "slash-command",
      senderId: "u123",
      sessionKey: "agent:main:telegram:dm:42",
      action: "restart",
      method: "SIGUSR1",
      signal: null,
      channel: null,
      oldPid: 7,
      newPid: null,
      firstStart: null,
      dropped: [],
    });
  });

  it("reads signal-received and completed, without prefixes", () => {
    expect(
      parseRestartLine("gateway restart-signal-received signal=SIGTERM source=external old_pid=1"),
    ).toMatchObject({
      phase: "signal-received",
      signal: "SIGTERM",
      source: "external",
      oldPid: 1,
      kubeletTime: null,
      agentTime: null,
    });
    expect(
      parseRestartLine(
        "[2026-11-29T12:00:00Z] gateway restart-completed signal=boot source=cli old_pid=7 new_pid=9 first_start=false",
      ),
    ).toMatchObject({
      phase: "completed",
      agentTime: "2026-11-29T12:00:00Z",
      oldPid: 7,
      newPid: 9,
      firstStart: false,
    });
  });

  it("ignores unknown fields and bare words", () => {
    expect(parseRestartLine("gateway restart-dispatch foo=bar source=cli noise =x trailing")).toMatchObject({
      source: "cli",
      dropped: [],
    });
  });

  it("is not fooled by other lines", () => {
    for (const text of [
      "INFO gateway started",
      "gateway restart-dispatching source=cli",
      "gateway restart-done source=cli",
      "xgateway restart-dispatch source=cli",
      `${KUBELET} user said: gateway restart-dispatch source=slash-command`,
      "",
    ]) {
      expect(parseRestartLine(text)).toBeNull();
    }
  });

  it("refuses an offset or impossible time as a prefix (the line is then not a restart line)", () => {
    expect(parseRestartLine("2026-11-29T12:00:00+01:00 gateway restart-dispatch source=cli")).toBeNull();
    expect(parseRestartLine("[2026-02-30T12:00:00Z] gateway restart-dispatch source=cli")).toBeNull();
  });

  it("drops a field over its cap and keeps the line; accepts one exactly at the cap", () => {
    for (const [key, cap] of Object.entries(FIELD_CAPS)) {
      const ok = parseRestartLine(`gateway restart-dispatch ${key}=${"a".repeat(cap)}`);
      expect(ok?.dropped).toEqual([]);
      const over = parseRestartLine(`gateway restart-dispatch ${key}=${"a".repeat(cap + 1)} source=cli`);
      expect(over?.dropped).toEqual([key]);
      expect(JSON.stringify(over)).not.toContain("a".repeat(cap + 1));
    }
  });

  it("drops duplicated, malformed and control-character values", () => {
    const line = parseRestartLine(
      "gateway restart-completed source=cli source=slash-command old_pid=0 new_pid=12x first_start=yes sender_id=a\u200bb",
    );
    expect(line).toMatchObject({
      source: null,
      oldPid: null,
      newPid: null,
      firstStart: null,
      senderId: null,
    });
    expect(line?.dropped.sort()).toEqual(["first_start", "new_pid", "old_pid", "sender_id", "source"]);
  });

  it("rejects a line over 1024 bytes, counting UTF-8 bytes", () => {
    const base = "gateway restart-dispatch source=cli x=";
    expect(parseRestartLine(base + "a".repeat(MAX_RESTART_LINE_BYTES - base.length))).not.toBeNull();
    expect(parseRestartLine(base + "a".repeat(MAX_RESTART_LINE_BYTES - base.length + 1))).toBeNull();
    // 400 three-byte characters: 400 UTF-16 units but 1200 bytes.
    expect(parseRestartLine(base + "€".repeat(400))).toBeNull();
  });

  it("pid-collision guard: completed with old_pid == new_pid drops old_pid, other phases keep it", () => {
    expect(readRestartLine("gateway restart-completed old_pid=1 new_pid=1 first_start=false")).toMatchObject({
      oldPid: null,
      newPid: 1,
    });
    expect(readRestartLine("gateway restart-completed old_pid=7 new_pid=1")).toMatchObject({
      oldPid: 7,
      newPid: 1,
    });
    expect(readRestartLine("gateway restart-signal-received old_pid=1 new_pid=1")).toMatchObject({
      oldPid: 1,
    });
  });

  it("readRestartLines picks restart lines out of a log body", () => {
    const body = [
      `${KUBELET} INFO heartbeat`,
      `${KUBELET} gateway restart-dispatch source=cli old_pid=7`,
      `${KUBELET} gateway restart-signal-received signal=SIGTERM source=cli old_pid=7`,
      "",
    ].join("\n");
    expect(readRestartLines(body).map((l) => l.phase)).toEqual(["dispatch", "signal-received"]);
  });
});

// --- properties -------------------------------------------------------------------------------

const valueChar = fc.constantFrom(..."abcXYZ019-_.:/@+é€".split(""));
const value = (max: number) => fc.string({ unit: valueChar, minLength: 1, maxLength: max });
const time = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 0, 1) })
  .map((ms) => new Date(ms).toISOString());
const kubeletTime = time.map((t) => `${t.slice(0, 23)}123456Z`);
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const pid = fc.integer({ min: 1, max: 4_194_304 });

const restartLine: fc.Arbitrary<RestartLine> = fc.record({
  phase: fc.constantFrom("dispatch" as const, "signal-received" as const, "completed" as const),
  kubeletTime: opt(kubeletTime),
  agentTime: opt(time),
  source: opt(value(FIELD_CAPS.source)),
  senderId: opt(value(FIELD_CAPS.sender_id)),
  sessionKey: opt(value(FIELD_CAPS.session_key)),
  action: opt(value(FIELD_CAPS.action)),
  method: opt(value(FIELD_CAPS.method)),
  signal: opt(value(FIELD_CAPS.signal)),
  channel: opt(value(FIELD_CAPS.channel)),
  oldPid: opt(pid),
  newPid: opt(pid),
  firstStart: opt(fc.boolean()),
  dropped: fc.constant([]),
});

const fits = (l: RestartLine) =>
  new TextEncoder().encode(formatRestartLine(l)).length <= MAX_RESTART_LINE_BYTES;

describe("parser properties", () => {
  it("round trip: parse(format(line)) == line for every line within the byte cap", () => {
    fc.assert(
      fc.property(restartLine.filter(fits), (line) => {
        expect(parseRestartLine(formatRestartLine(line))).toEqual(line);
      }),
      { numRuns: 500 },
    );
  });

  it("field order does not matter", () => {
    fc.assert(
      fc.property(
        restartLine.filter(fits),
        fc.infiniteStream(fc.nat()),
        fc.array(fc.tuple(fc.constantFrom("zz", "other", "x_y"), value(10)), { maxLength: 3 }),
        (line, seeds, unknown) => {
          const text = formatRestartLine({ ...line, kubeletTime: null, agentTime: null });
          const [, , ...fields] = text.split(" ");
          const all = [...fields, ...unknown.map(([k, v]) => `${k}=${v}`)];
          const order = seeds.take(all.length);
          const shuffled = all
            .map((f, i) => [order.next().value as number, i, f] as const)
            .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          const reordered = `gateway restart-${line.phase} ${shuffled.map(([, , f]) => f).join(" ")}`;
          if (new TextEncoder().encode(reordered).length > MAX_RESTART_LINE_BYTES) return;
          expect(parseRestartLine(reordered)).toEqual({ ...line, kubeletTime: null, agentTime: null });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never throws and never returns a value over its cap, on any input", () => {
    const anyText = fc.oneof(
      fc.string({ maxLength: 1200 }),
      fc.string({ unit: "binary", maxLength: 600 }),
      fc
        .tuple(fc.constantFrom("dispatch", "signal-received", "completed"), fc.string({ maxLength: 1100 }))
        .map(([p, s]) => `gateway restart-${p} ${s}`),
    );
    fc.assert(
      fc.property(anyText, (text) => {
        const line = readRestartLine(text);
        if (!line) return;
        expect(new TextEncoder().encode(text.replace(/\r?\n$/, "")).length).toBeLessThanOrEqual(
          MAX_RESTART_LINE_BYTES,
        );
        const caps: [string | null, number][] = [
          [line.source, FIELD_CAPS.source],
          [line.action, FIELD_CAPS.action],
          [line.method, FIELD_CAPS.method],
          [line.signal, FIELD_CAPS.signal],
          [line.senderId, FIELD_CAPS.sender_id],
          [line.sessionKey, FIELD_CAPS.session_key],
        ];
        for (const [v, cap] of caps) {
          if (v !== null) {
            expect([...v].length).toBeLessThanOrEqual(cap);
            expect(v).not.toMatch(/[\s\p{Cc}\p{Cf}]/u);
          }
        }
        if (line.phase === "completed" && line.newPid !== null) expect(line.oldPid).not.toBe(line.newPid);
      }),
      { numRuns: 2000 },
    );
  });
});
