/**
 * The simulator's clock (docs/kube.md § Scenario file): `wall` follows real time from the scenario's
 * `now` (load time maps to `now`), `manual` stands still and moves only through the admin API.
 * Epoch nanoseconds, so sub-millisecond kubelet times compare exactly.
 */
import { msToNs } from "../scenario/time.ts";

export interface SimClock {
  readonly kind: "wall" | "manual";
  nowNs(): bigint;
  /** Jumps to `ns` (wall: keeps ticking from there). */
  set(ns: bigint): void;
  advance(ms: number): void;
  /** Called after every set/advance; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}

export function createClock(
  kind: "wall" | "manual",
  startNs: bigint,
  realNowMs: () => number = Date.now,
): SimClock {
  const listeners = new Set<() => void>();
  let value = startNs;
  let offset = startNs - msToNs(realNowMs());
  const notify = () => {
    for (const l of [...listeners]) l();
  };
  return {
    kind,
    nowNs: () => (kind === "manual" ? value : msToNs(realNowMs()) + offset),
    set(ns) {
      if (kind === "manual") value = ns;
      else offset = ns - msToNs(realNowMs());
      notify();
    },
    advance(ms) {
      if (kind === "manual") value += msToNs(ms);
      else offset += msToNs(ms);
      notify();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
