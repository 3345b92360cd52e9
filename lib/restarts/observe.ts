/**
 * Builds the attribution view of a runtime from the kube driver's `RuntimeObservation` (the
 * validated description plus per-Pod extras), and the compact copy of it the probe keeps between
 * runs. Pure.
 */
import type { RuntimeObservation } from "../kube/types.ts";
import { EVIDENCE_REASONS } from "./attribute.ts";
import type { Observation, ObservedPod } from "./types.ts";

export function toObservation(runtime: RuntimeObservation): Observation {
  const byUid = new Map(runtime.observations.map((o) => [o.uid, o]));
  const pods: ObservedPod[] = [];
  for (const p of runtime.description.pods) {
    const extra = byUid.get(p.uid);
    pods.push({
      role: p.role,
      plane: p.cluster,
      name: p.name,
      uid: p.uid,
      phase: p.phase,
      createdAt: p.createdAt,
      statusReason: extra?.statusReason ?? null,
      restartedAt: extra?.restartedAt ?? null,
      containers: p.containers.map((c) => {
        const x = extra?.containers.find((e) => e.name === c.name);
        const last = x?.lastTerminated ?? null;
        return {
          name: c.name,
          init: c.init,
          restartCount: c.restartCount,
          startedAt: x?.startedAt ?? c.startedAt,
          lastTermination: last
            ? {
                exitCode: last.exitCode,
                signal: last.signal,
                reason: last.reason,
                message: last.message,
                startedAt: last.startedAt,
                finishedAt: last.finishedAt,
              }
            : c.lastTermination
              ? { ...c.lastTermination, message: null, startedAt: null }
              : null,
        };
      }),
      events: p.events.map((e) => ({
        type: e.type,
        reason: e.reason,
        container: e.container,
        message: e.message,
        lastObservedAt: e.lastObservedAt,
      })),
    });
  }
  return { observedAt: runtime.description.observedAt, pods };
}

/**
 * The compact observation the probe stores (`OBS#…` item): enough to detect the next transition
 * and to attribute a replacement after Kubernetes has dropped the old Pod. Events keep only their
 * reason (from the evidence list), container and time; liveness `Unhealthy` keeps a fixed marker
 * message, never cluster text.
 */
export function compactObservation(obs: Observation): Observation {
  return {
    observedAt: obs.observedAt,
    pods: obs.pods.map((p) => ({
      ...p,
      containers: p.containers.map((c) => ({
        ...c,
        lastTermination: c.lastTermination ? { ...c.lastTermination, message: null } : null,
      })),
      events: p.events
        .filter((e) => EVIDENCE_REASONS.has(e.reason))
        .slice(0, 20)
        .map((e) => ({
          ...e,
          message:
            e.reason === "Unhealthy" && /liveness probe/i.test(e.message) ? "Liveness probe failed" : "",
        })),
    })),
  };
}
