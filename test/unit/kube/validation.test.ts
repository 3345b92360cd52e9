import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventContainer, mergeEvents } from "../../../lib/kube/describe.ts";
import { buildLogQuery, classifyLogResponse, isWaitingToStart } from "../../../lib/kube/log-read.ts";
import { isDnsLabel, isDnsSubdomain, isUid, type RawEvent } from "../../../lib/kube/validate.ts";
import { isRfc3339Utc, utcSortKey } from "../../../lib/rfc3339.ts";

const utcTime = fc
  .record({
    ms: fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2200, 0, 1) }),
    fraction: fc.stringMatching(/^[0-9]{0,9}$/),
  })
  .map(({ ms, fraction }) => `${new Date(ms).toISOString().slice(0, 19)}${fraction ? `.${fraction}` : ""}Z`);

describe("RFC 3339 UTC times", () => {
  it("accepts every real UTC instant with 0–9 fraction digits", () => {
    fc.assert(fc.property(utcTime, (t) => isRfc3339Utc(t)));
  });

  it("refuses offsets, impossible dates and other shapes", () => {
    for (const bad of [
      "2026-11-29T12:00:00+00:00",
      "2026-11-29T12:00:00-05:00",
      "2026-11-29T12:00:00z",
      "2026-11-29 12:00:00Z",
      "2026-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-11-29T24:00:00Z",
      "2026-11-29T12:00:60Z",
      "2026-11-29T12:00:00.Z",
      "2026-11-29T12:00:00.0123456789Z",
      "+02026-11-29T12:00:00Z",
      "",
    ]) {
      expect(isRfc3339Utc(bad), bad).toBe(false);
    }
    expect(isRfc3339Utc("2024-02-29T00:00:00Z")).toBe(true);
  });

  it("orders valid times chronologically by key, whatever the fraction digits", () => {
    fc.assert(
      fc.property(utcTime, utcTime, (a, b) => {
        const ns = (t: string) => {
          const [base, frac = ""] = t.slice(0, -1).split(".");
          return BigInt(Date.parse(`${base}Z`)) * 1_000_000n + BigInt(frac.padEnd(9, "0"));
        };
        const byKey = utcSortKey(a) < utcSortKey(b) ? -1 : utcSortKey(a) > utcSortKey(b) ? 1 : 0;
        const byNs = ns(a) < ns(b) ? -1 : ns(a) > ns(b) ? 1 : 0;
        expect(byKey).toBe(byNs);
      }),
    );
  });
});

describe("names", () => {
  it("DNS labels and subdomains follow RFC 1123", () => {
    expect(isDnsLabel("gw-0")).toBe(true);
    expect(isDnsLabel("-gw")).toBe(false);
    expect(isDnsLabel("Gw")).toBe(false);
    expect(isDnsLabel("a".repeat(64))).toBe(false);
    expect(isDnsSubdomain("gw-0.x-y")).toBe(true);
    expect(isDnsSubdomain("gw..0")).toBe(false);
    expect(isDnsSubdomain(`${"a".repeat(63)}.`.repeat(4))).toBe(false);
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        if (isDnsSubdomain(s)) expect(s).toMatch(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/);
      }),
    );
    expect(isUid("6f1c-AB-09")).toBe(true);
    expect(isUid("a/b")).toBe(false);
  });
});

describe("log query and answers", () => {
  it("builds the kubelet query with timestamps and refuses out-of-range values", () => {
    const q = buildLogQuery("tenant-a", "gw-0", {
      container: "gateway",
      previous: true,
      tailLines: 200,
      sinceTime: "2026-11-29T12:00:00.5Z",
      limitBytes: 1048576,
    });
    const url = new URL(q, "http://x");
    expect(url.pathname).toBe("/api/v1/namespaces/tenant-a/pods/gw-0/log");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      container: "gateway",
      timestamps: "true",
      tailLines: "200",
      sinceTime: "2026-11-29T12:00:00.5Z",
      previous: "true",
      limitBytes: "1048576",
    });
    const base = { container: "c", previous: false, limitBytes: 10 };
    expect(() => buildLogQuery("n", "p", { ...base, limitBytes: 1048577 })).toThrow();
    expect(() => buildLogQuery("n", "p", { ...base, sinceTime: "2026-11-29T12:00:00+01:00" })).toThrow();
    expect(() =>
      buildLogQuery("n", "p", { ...base, sinceSeconds: 5, sinceTime: "2026-11-29T12:00:00Z" }),
    ).toThrow();
  });

  it("recognises only the exact waiting-to-start message", () => {
    expect(isWaitingToStart('container "c" in pod "p" is waiting to start: PodInitializing', "c", "p")).toBe(
      true,
    );
    expect(isWaitingToStart('container "c" in pod "p" is waiting to start: PodInitializing!', "c", "p")).toBe(
      false,
    );
    expect(
      isWaitingToStart('container "c" in pod "q" is waiting to start: ContainerCreating', "c", "p"),
    ).toBe(false);
  });

  it("on previous=true only the exact 'no previous instance' 400 is an empty page", () => {
    const status400 = (message: string) => ({
      status: 400,
      headers: {},
      body: Buffer.from(JSON.stringify({ kind: "Status", message })),
      cut: false,
    });
    const q = { container: "c", previous: true, limitBytes: 100 };
    const none = status400('previous terminated container "c" in pod "p" not found');
    expect(classifyLogResponse(none, q, "p", 100)).toEqual({ kind: "text", text: "", truncated: false });
    expect(() => classifyLogResponse(none, { ...q, previous: false }, "p", 100)).toThrow();
    for (const message of [
      "bad",
      'previous terminated container "d" in pod "p" not found',
      'previous terminated container "c" in pod "q" not found',
      ' previous terminated container "c" in pod "p" not found',
    ]) {
      expect(() => classifyLogResponse(status400(message), q, "p", 100)).toThrow();
    }
  });
});

describe("Events", () => {
  const ev = (n: number, at: string | null, extra: Partial<RawEvent> = {}): RawEvent => ({
    metadata: { name: `e${n}` },
    involvedObject: { kind: "Pod", uid: "u1" },
    type: "Normal",
    reason: "R",
    message: `m${n}`,
    ...(at ? { lastTimestamp: at } : {}),
    ...extra,
  });

  it("merging pages in any split keeps the same newest 100", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 0, maxLength: 260 }),
        fc.integer({ min: 1, max: 100 }),
        (offsets, pageSize) => {
          const events = offsets.map((o, i) =>
            ev(i, new Date(Date.UTC(2026, 10, 29) + o * 1000).toISOString().replace(".000", "")),
          );
          let kept = mergeEvents([], [], "u1", true);
          for (let i = 0; i < events.length; i += pageSize)
            kept = mergeEvents(kept, events.slice(i, i + pageSize), "u1", true);
          const once = mergeEvents([], events, "u1", true);
          expect(kept.map((k) => k.name)).toEqual(once.map((k) => k.name));
          expect(kept.length).toBe(Math.min(100, events.length));
        },
      ),
    );
  });

  it("takes the container from fieldPath only when declared", () => {
    const declared = new Set(["gateway", "init"]);
    expect(eventContainer("spec.containers{gateway}", declared)).toBe("gateway");
    expect(eventContainer("spec.initContainers{init}", declared)).toBe("init");
    expect(eventContainer("spec.containers{ghost}", declared)).toBeNull();
    expect(eventContainer("spec.ephemeralContainers{gateway}", declared)).toBeNull();
    expect(eventContainer(undefined, declared)).toBeNull();
  });
});
