/** Response-shaped samples for the console's unit tests, typed by the service's own types. */

import type { Container, LineRecord, Runtime } from "../../../console/types.ts";
import type { RestartRecord as ServiceRestartRecord } from "../../../lib/restarts/types.ts";

export const POD_UID = "6f1c0000-0000-4000-8000-0000000000a2";

export function restartRecord(over: Partial<ServiceRestartRecord> = {}): ServiceRestartRecord {
  return {
    restartId: "01JF0000000000000000000000",
    namespaceId: "acme",
    agentId: "support",
    deploymentId: "d2",
    role: "agent",
    plane: "execution",
    pod: "h-0",
    container: "harness",
    scope: "container-restart",
    previous: {
      podUid: POD_UID,
      container: "harness",
      restartCount: 0,
      pod: "h-0",
      startedAt: "2026-12-01T07:00:00Z",
      finishedAt: "2026-12-01T08:40:01Z",
      pid: null,
    },
    next: {
      podUid: POD_UID,
      container: "harness",
      restartCount: 1,
      pod: "h-0",
      startedAt: "2026-12-01T08:40:02Z",
      finishedAt: null,
      pid: null,
    },
    termination: { exitCode: 137, signal: null, reason: "OOMKilled", message: null },
    trigger: { category: "oom", source: null, action: null, method: null, confidence: "confirmed" },
    actor: { kind: "kubernetes", actorRef: null, sessionRef: null, channel: null },
    evidence: { phases: [], eventReasons: [], restartedAtAnnotation: false },
    detectedAt: "2026-12-01T08:40:03Z",
    detectedBy: "status-read",
    ...over,
  };
}

export function container(over: Partial<Container> = {}): Container {
  return {
    name: "harness",
    init: false,
    state: "running",
    reason: null,
    ready: true,
    restartCount: 0,
    startedAt: "2026-12-01T07:00:00Z",
    lastTermination: null,
    ...over,
  };
}

export function runtime(over: Partial<Runtime> = {}): Runtime {
  return {
    deploymentId: "d2",
    observedAt: "2026-12-01T08:40:05Z",
    pods: [
      {
        role: "agent",
        cluster: "execution",
        name: "h-0",
        uid: POD_UID,
        phase: "Running",
        ready: true,
        createdAt: "2026-12-01T07:00:00Z",
        containers: [container({ restartCount: 1 })],
        events: [],
      },
    ],
    sources: [],
    restarts: [],
    ...over,
  };
}

/** A sandbox line as the service sends it (docs: kind sandbox, origin, format, decision fields). */
export function sandboxLine(over: Partial<LineRecord> = {}): LineRecord {
  return {
    type: "line",
    time: "2026-12-01T08:40:00.123Z",
    kind: "sandbox",
    level: "info",
    message: "CONNECT api.github.com:443",
    subsystem: "openshell_sandbox::proxy",
    origin: "sandbox",
    fields: { action: "allow", dst_host: "api.github.com", dst_port: "443" },
    ...over,
  };
}
