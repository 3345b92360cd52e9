/**
 * The console's view logic without a browser: row text (date and time once, the level once),
 * readiness of init containers, the inline restart marker, sandbox decisions, the busy backoff,
 * deep links and the copy that depends on numbers or on what is selected.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUSY_CAP_MS, busyDelayMs, waitSeconds } from "../../../console/backoff.ts";
import { readiness, restartMarker, rowMessage, sameInstance } from "../../../console/format.ts";
import { readViewState, type ViewState, viewSearch } from "../../../console/link.ts";
import { count, deploymentsNotice, stoppedNotice, withheldNotice } from "../../../console/messages.ts";
import { sandboxView } from "../../../console/sandbox.ts";
import type { Level, Stream } from "../../../console/types.ts";
import { ID_PATTERN } from "../../../lib/api/ids.ts";
import { container, POD_UID, restartRecord, runtime, sandboxLine } from "./fixtures.ts";

const TIME = "2026-12-01T08:40:00.123456789Z";
const text = (message: string, level: Level) => ({ kind: "text" as const, message, level, time: TIME });

describe("row message", () => {
  it("drops a leading level word that says the row's level, bare, bracketed or with a colon", () => {
    expect(rowMessage(text("INFO request 0 handled", "info"))).toBe("request 0 handled");
    expect(rowMessage(text("[WARN] slow upstream", "warn"))).toBe("slow upstream");
    expect(rowMessage(text("ERROR: boom", "error"))).toBe("boom");
    expect(rowMessage(text("[error] boom", "error"))).toBe("boom");
    expect(rowMessage(text("WARNING disk", "warn"))).toBe("disk");
    // The CLI's rule too (lib/runtime-logs/level-words.ts): a colon or angle brackets mark a level word.
    expect(rowMessage(text("warning: disk 91%", "warn"))).toBe("disk 91%");
    expect(rowMessage(text("<info> up", "info"))).toBe("up");
  });

  it("keeps words that are not the row's level, lower-case prose, and non-text kinds as sent", () => {
    expect(rowMessage(text("INFO but the row says warn", "warn"))).toBe("INFO but the row says warn");
    expect(rowMessage(text("info is a word here", "info"))).toBe("info is a word here");
    expect(rowMessage(text("heartbeat", "unknown"))).toBe("heartbeat");
    expect(rowMessage({ kind: "structured", message: "INFO x", level: "info", time: TIME })).toBe("INFO x");
    expect(rowMessage(text("INFO", "info"))).toBe("INFO");
  });

  it("drops a leading time naming the row's second, keeps one naming another", () => {
    expect(rowMessage(text("[2026-12-01T08:40:00.9Z] INFO up", "info"))).toBe("up");
    expect(rowMessage(text("2026-12-01T09:40:00+01:00 INFO up", "info"))).toBe("up");
    expect(rowMessage(text("2026-12-01T08:41:00Z INFO up", "info"))).toBe("2026-12-01T08:41:00Z INFO up");
  });

  it("only ever removes a prefix: what is shown is the end of what was sent", () => {
    const levels: Level[] = ["error", "warn", "info", "debug", "unknown"];
    const word = fc.constantFrom(
      "INFO",
      "WARN",
      "ERROR",
      "DEBUG",
      "TRACE",
      "[INFO]",
      "[warn]",
      "ERR:",
      "note",
      "",
    );
    fc.assert(
      fc.property(fc.constantFrom(...levels), word, fc.string(), (level, w, rest) => {
        const message = w === "" ? rest : `${w} ${rest}`;
        const shown = rowMessage(text(message, level));
        expect(message.endsWith(shown)).toBe(true);
        if (message.length > 0) expect(shown.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe("readiness", () => {
  it("a completed init container is done, not a red 'not ready'", () => {
    const init = container({
      name: "workspace-init",
      init: true,
      state: "terminated",
      reason: "Completed",
      ready: false,
    });
    expect(readiness(init)).toEqual({ text: "completed", tone: "ok" });
    expect(readiness({ ...init, reason: "Error" })).toEqual({ text: "failed", tone: "bad" });
    expect(readiness({ ...init, state: "waiting", reason: "CrashLoopBackOff", restartCount: 3 }).tone).toBe(
      "bad",
    );
    expect(readiness({ ...init, state: "running", reason: null })).toEqual({
      text: "running",
      tone: "muted",
    });
    expect(readiness(container({ ready: false }))).toEqual({ text: "not ready", tone: "bad" });
    expect(readiness(container())).toEqual({ text: "ready", tone: "ok" });
  });
});

describe("restart marker", () => {
  const stream = (restartCount: number, podUid = POD_UID, pod = "h-0"): Stream => ({
    source: "agent",
    pod,
    podUid,
    container: "harness",
    restartCount,
    previous: false,
  });

  it("says which instance is which and the attribution of the restart record", () => {
    const m = restartMarker(stream(0), stream(1), runtime({ restarts: [restartRecord()] }));
    expect(m.title).toBe(
      "harness in h-0 restarted: lines above are the old instance, below the new one (restart 1).",
    );
    expect(m.cause).toBe("Cause: oom · by kubernetes · ended OOMKilled, exit 137 · 08:40 UTC");
  });

  it("matches the record of this instance only, and says an inferred cause is inferred", () => {
    const other = restartRecord({ next: { ...restartRecord().next, restartCount: 2 } });
    const inferred = restartRecord();
    inferred.trigger = {
      category: "crash",
      source: null,
      action: null,
      method: null,
      confidence: "inferred",
    };
    inferred.actor = { kind: "external-unknown", actorRef: null, sessionRef: null, channel: null };
    expect(restartMarker(stream(0), stream(1), runtime({ restarts: [other, inferred] })).cause).toBe(
      "Cause: crash (inferred) · ended OOMKilled, exit 137 · 08:40 UTC",
    );
  });

  it("falls back to Kubernetes' own termination, then to 'not known yet'", () => {
    const rt = runtime();
    const c = rt.pods[0]!.containers[0]!;
    c.lastTermination = { reason: "Error", exitCode: 1, signal: null, finishedAt: "2026-12-01T08:40:01Z" };
    expect(restartMarker(stream(0), stream(1), rt).cause).toBe(
      "Not attributed; Kubernetes says: Error · exit 1 · 08:40 UTC",
    );
    expect(restartMarker(stream(0), stream(1), null).cause).toBe("Cause: reading the status…");
    expect(restartMarker(stream(0), stream(1), runtime({ pods: [] })).cause).toBe("Cause not recorded.");
  });

  it("tells one instance from another; a sandbox view that learns its instance ID is not a restart", () => {
    expect(sameInstance(stream(0), stream(0))).toBe(true);
    expect(sameInstance(stream(0), stream(1))).toBe(false);
    expect(sameInstance(stream(0), stream(0, "other-uid"))).toBe(false);
    const sandbox = (sandboxId: string | null): Stream =>
      ({ source: "sandbox", gatewayId: "os1", sandbox: "support-d2", sandboxId }) as Stream;
    expect(sameInstance(sandbox(null), sandbox("sbx-1"))).toBe(true);
    expect(sameInstance(sandbox("sbx-1"), sandbox("sbx-1"))).toBe(true);
    expect(sameInstance(sandbox("sbx-1"), sandbox("sbx-2"))).toBe(false);
    expect(sameInstance(sandbox("sbx-1"), stream(0))).toBe(false);
    expect(restartMarker(sandbox("sbx-1"), sandbox("sbx-2"), null).title).toBe(
      "The sandbox was replaced: lines above are the old instance, below the new one (instance sbx-2).",
    );
  });

  it("names a Pod replacement as such", () => {
    const m = restartMarker(stream(0, "old-uid", "h-0"), stream(0, POD_UID, "h-1"), null);
    expect(m.title).toContain("Pod h-0 was replaced by h-1");
  });
});

describe("sandbox decisions", () => {
  it("shows allow and deny as verdicts with the destination and labelled details", () => {
    expect(sandboxView(sandboxLine())).toEqual({
      origin: "supervisor",
      action: { text: "allow", verdict: "allow" },
      destination: "api.github.com:443",
      details: [],
      rest: [],
      ocsf: false,
    });
    const denied = sandboxView(
      sandboxLine({
        origin: "gateway",
        fields: {
          action: "deny",
          dst_host: "evil.example",
          dst_port: "22",
          binary: "/usr/bin/ssh",
          policy: "default",
          reason: "not in allowlist",
          pid: 42,
        },
      }),
    );
    expect(denied).toMatchObject({
      origin: "gateway",
      action: { text: "deny", verdict: "deny" },
      destination: "evil.example:22",
      details: ["binary /usr/bin/ssh", "policy default", "reason not in allowlist"],
      rest: ["pid=42"],
    });
    expect(sandboxView(sandboxLine({ format: "ocsf", fields: {} }))).toMatchObject({
      ocsf: true,
      action: null,
      destination: null,
    });
    expect(sandboxView(sandboxLine({ fields: { action: "audit" } })).action).toEqual({
      text: "audit",
      verdict: "other",
    });
  });

  it("accounts for every field exactly once, whatever the fields are", () => {
    const key = fc.oneof(
      fc.constantFrom("action", "dst_host", "dst_port", "binary", "policy", "reason"),
      fc.stringMatching(/^[a-z_]{1,8}$/),
    );
    const value = fc.oneof(fc.string({ minLength: 1 }), fc.integer(), fc.boolean());
    fc.assert(
      fc.property(fc.dictionary(key, value), (fields) => {
        const v = sandboxView(sandboxLine({ fields }));
        const shown = [
          ...(v.action ? ["action"] : []),
          ...(v.destination ? ["dst_host", "dst_port"].filter((k) => k in fields) : []),
          ...v.details.map((d) => d.split(" ")[0]),
          ...v.rest.map((r) => r.slice(0, r.indexOf("="))),
        ].sort();
        expect(shown).toEqual(Object.keys(fields).sort());
      }),
    );
  });
});

describe("busy backoff", () => {
  it("waits at least Retry-After and a poll interval, grows with busy answers, and spreads clients", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.option(fc.integer({ min: 1, max: 120 })),
        fc.integer({ min: 50, max: 60_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, retryAfter, pollMs, random) => {
          const ms = busyDelayMs(attempt, retryAfter, pollMs, random);
          const floor = Math.max(
            (retryAfter ?? 1) * 1000,
            pollMs,
            Math.min(BUSY_CAP_MS, pollMs * 2 ** attempt),
          );
          expect(ms).toBeGreaterThanOrEqual(floor);
          expect(ms).toBeLessThanOrEqual(Math.round(floor * 1.5));
          expect(busyDelayMs(attempt + 1, retryAfter, pollMs, 0)).toBeGreaterThanOrEqual(
            busyDelayMs(attempt, retryAfter, pollMs, 0),
          );
        },
      ),
    );
    // The same moment, different clients: different waits.
    expect(busyDelayMs(0, 1, 2000, 0.1)).not.toBe(busyDelayMs(0, 1, 2000, 0.9));
    expect(busyDelayMs(0, 1, 2000, 0)).toBe(2000);
    expect(busyDelayMs(3, 1, 2000, 0)).toBe(16_000);
    expect(busyDelayMs(20, 1, 2000, 0)).toBe(BUSY_CAP_MS);
    expect(waitSeconds(2001)).toBe(3);
  });
});

describe("deep links", () => {
  const id = fc.stringMatching(ID_PATTERN);
  const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
  const state: fc.Arbitrary<ViewState> = fc
    .record(
      {
        namespaceId: id,
        agentId: id,
        deploymentId: id,
        source: fc.constantFrom("gateway" as const, "agent" as const, "sandbox" as const),
        pod: label,
        container: label,
        previous: fc.constant(true),
      },
      { requiredKeys: ["namespaceId", "agentId"] },
    )
    .map((s) => normalise(s));

  /** What a link can carry: each part needs the ones before it; a sandbox has no Pod. */
  function normalise(s: ViewState): ViewState {
    const out: ViewState = { namespaceId: s.namespaceId as string, agentId: s.agentId as string };
    if (!s.deploymentId) return out;
    out.deploymentId = s.deploymentId;
    if (!s.source) return out;
    out.source = s.source;
    if (s.source === "sandbox" || !s.pod) return out;
    out.pod = s.pod;
    if (s.container) out.container = s.container;
    if (s.previous) out.previous = true;
    return out;
  }

  it("reads back exactly the selection it wrote, keeping other parameters", () => {
    fc.assert(
      fc.property(state, (s) => {
        const search = viewSearch(s, "?poll=200&namespace=old");
        expect(readViewState(search)).toEqual(s);
        expect(new URLSearchParams(search).get("poll")).toBe("200");
        expect(new URLSearchParams(search).getAll("namespace")).toHaveLength(1);
      }),
    );
    expect(
      viewSearch({
        namespaceId: "acme",
        agentId: "support",
        deploymentId: "d2",
        source: "agent",
        pod: "h-0",
        container: "harness",
      }),
    ).toBe("?namespace=acme&agent=support&deployment=d2&source=agent&pod=h-0&container=harness");
  });

  it("drops anything outside the contract's patterns, and what depends on it", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom("namespace", "agent", "deployment", "source", "pod", "container", "previous"),
          fc.string(),
        ),
        (params) => {
          const s = readViewState(`?${new URLSearchParams(params)}`);
          for (const v of [s.namespaceId, s.agentId, s.deploymentId])
            if (v !== undefined) expect(v).toMatch(ID_PATTERN);
          if (s.pod !== undefined) expect(s.pod).toMatch(/^[a-z0-9.-]{1,253}$/);
          if (s.container !== undefined) expect(s.container).toMatch(/^[a-z0-9-]{1,63}$/);
        },
      ),
    );
    expect(readViewState("?namespace=acme&agent=Support&deployment=d2")).toStrictEqual({});
    expect(readViewState("?namespace=acme&agent=support&deployment=d2&source=sandbox&pod=x")).toEqual({
      namespaceId: "acme",
      agentId: "support",
      deploymentId: "d2",
      source: "sandbox",
    });
  });
});

describe("copy", () => {
  it("counts in the singular and the plural", () => {
    expect(withheldNotice(1)).toBe("1 line withheld in this page.");
    expect(withheldNotice(2)).toBe("2 lines withheld in this page.");
    expect(withheldNotice(0)).toBe("");
    expect(count(1, "deployment")).toBe("1 deployment");
  });

  it("says the active deployment is selected only while it is", () => {
    const list = [
      { deploymentId: "d1", revision: 1, createdAt: null, active: false },
      { deploymentId: "d2", revision: 2, createdAt: null, active: true },
    ];
    expect(deploymentsNotice(list, "d2")).toBe("2 deployments; the active one is selected.");
    expect(deploymentsNotice(list, "d1")).toBe("2 deployments; d1 is selected (the active one is d2).");
    expect(deploymentsNotice([list[0]!], "d1")).toBe("1 deployment; none is active. d1 is selected.");
  });

  it("says polling stopped only when something polled", () => {
    expect(stoppedNotice("Follow", false)).toBe("");
    expect(stoppedNotice("Status polling", true)).toBe(" Status polling stopped.");
  });
});
