/** Builders for observations in restart tests. */
import type {
  Observation,
  ObservedContainer,
  ObservedEvent,
  ObservedPod,
} from "../../../lib/restarts/types.ts";

export const T0 = "2026-11-29T12:00:00Z";

export function container(over: Partial<ObservedContainer> = {}): ObservedContainer {
  return { name: "gateway", init: false, restartCount: 0, startedAt: T0, lastTermination: null, ...over };
}

export function pod(over: Partial<ObservedPod> = {}): ObservedPod {
  return {
    role: "gateway",
    plane: "control",
    name: "gw-0",
    uid: "uid-a",
    phase: "Running",
    createdAt: "2026-11-29T11:00:00Z",
    statusReason: null,
    restartedAt: null,
    containers: [container()],
    events: [],
    ...over,
  };
}

export function event(reason: string, over: Partial<ObservedEvent> = {}): ObservedEvent {
  return { type: "Warning", reason, container: "gateway", message: "", lastObservedAt: null, ...over };
}

export const obs = (pods: ObservedPod[], observedAt = T0): Observation => ({ observedAt, pods });
