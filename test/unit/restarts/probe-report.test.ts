import { describe, expect, it } from "vitest";
import { probeBudget } from "../../../lib/probe/handler.ts";
import {
  createProbeMetrics,
  groupStatus,
  type ProbeReport,
  recordProbeMetrics,
  worst,
} from "../../../lib/probe/report.ts";
import { detectBetween } from "../../../lib/restarts/detect.ts";
import { pendingObservation } from "../../../lib/restarts/index.ts";
import { container, obs, pod } from "./fixtures.ts";

function report(over: Partial<ProbeReport["checks"]> = {}): ProbeReport {
  return {
    report: "runtime-logs.health-probe",
    status: "ok",
    startedAt: "2026-11-29T12:00:00.000Z",
    finishedAt: "2026-11-29T12:00:01.000Z",
    durationMs: 1000,
    budgetMs: 50_000,
    partial: false,
    checks: {
      stores: { status: "ok", tables: [], keys: { status: "ok" } },
      clusters: {
        status: "failed",
        partial: false,
        skipped: 0,
        clusters: [
          {
            clusterId: "a",
            status: "failed",
            latencyMs: 42,
            versionOk: true,
            namespaces: [{ namespace: "n", status: "failed", missing: ["get pods/log"], permissions: [] }],
          },
          { clusterId: "b", status: "ok", latencyMs: 7, versionOk: true, namespaces: [] },
        ],
      },
      restarts: {
        status: "degraded",
        deployments: 2,
        observed: 2,
        transitions: 3,
        recorded: 2,
        existing: 1,
        deferred: 0,
        withoutEvents: 0,
        failures: [],
        partial: false,
        skipped: 0,
      },
      gateways: { status: "ok", gateways: [], partial: false, skipped: 0 },
      ...over,
    },
  };
}

describe("status aggregation", () => {
  it("worst and groupStatus", () => {
    expect(worst([])).toBe("ok");
    expect(worst(["ok", "degraded"])).toBe("degraded");
    expect(worst(["degraded", "failed", "ok"])).toBe("failed");
    expect(groupStatus([])).toBe("ok");
    expect(groupStatus(["failed", "failed"])).toBe("failed");
    expect(groupStatus(["failed", "ok"])).toBe("degraded");
    expect(groupStatus(["ok", "ok"])).toBe("ok");
  });
});

/** The EMF document Powertools would write for one report. */
function emf(r: ProbeReport, timestamp: number) {
  const metrics = createProbeMetrics();
  metrics.setTimestamp(timestamp);
  recordProbeMetrics(metrics, r);
  return JSON.parse(JSON.stringify(metrics.serializeMetrics()));
}

describe("probe metrics (Powertools EMF)", () => {
  it("are in namespace RuntimeLogs with only the Function dimension the alarms select on", () => {
    const doc = emf(report(), 1_764_417_600_000);
    expect(doc._aws.Timestamp).toBe(1_764_417_600_000);
    const directive = doc._aws.CloudWatchMetrics[0];
    expect(directive.Namespace).toBe("RuntimeLogs");
    expect(directive.Dimensions).toEqual([["Function"]]);
    expect(doc.service).toBeUndefined();
    const names = directive.Metrics.map((m: { Name: string }) => m.Name);
    for (const name of ["ProbeFailures", "ProbeDegraded", "RestartsRecorded", "ClusterLatencyMs"]) {
      expect(names).toContain(name);
      expect(typeof doc[name]).toBe("number");
    }
    expect(doc).toMatchObject({
      Function: "health-probe",
      ProbeFailures: 1,
      ProbeDegraded: 1,
      RestartsRecorded: 2,
      ClusterLatencyMs: 42,
      ClusterPermissionsMissing: 1,
    });
  });

  it("omit the latency metric when no cluster answered", () => {
    const r = report({ clusters: { status: "ok", clusters: [], partial: false, skipped: 0 } });
    expect(emf(r, 0).ClusterLatencyMs).toBeUndefined();
  });
});

describe("probeBudget", () => {
  it("is 50 s of a 60 s timeout, less when less time is left, never below 1 s", () => {
    expect(probeBudget(undefined)).toBe(50_000);
    expect(probeBudget(60_000)).toBe(50_000);
    expect(probeBudget(900_000)).toBe(50_000);
    expect(probeBudget(30_000)).toBe(20_000);
    expect(probeBudget(5_000)).toBe(1_000);
  });
});

describe("pendingObservation", () => {
  it("rolls deferred transitions back so the next run detects them again", () => {
    const prev = obs([pod()]);
    const next = obs([
      pod({ uid: "uid-b", name: "gw-1" }),
      pod({ role: "agent", uid: "uid-h", name: "h", containers: [container({ restartCount: 2 })] }),
    ]);
    const withRestart = obs([...next.pods]);
    const prevWithH = obs([
      ...prev.pods,
      pod({ role: "agent", uid: "uid-h", name: "h", containers: [container({ restartCount: 1 })] }),
    ]);
    const deferred = detectBetween(prevWithH, withRestart);
    expect(deferred.map((t) => t.scope).sort()).toEqual(["container-restart", "pod-replacement"]);
    const stored = pendingObservation(withRestart, prevWithH, deferred);
    expect(
      detectBetween(stored, withRestart)
        .map((t) => t.scope)
        .sort(),
    ).toEqual(["container-restart", "pod-replacement"]);
    expect(pendingObservation(withRestart, prevWithH, [])).toBe(withRestart);
  });
});
