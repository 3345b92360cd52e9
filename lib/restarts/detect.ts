/**
 * Detection of instance transitions (docs/restarts.md § What is a restart here). Pure.
 *
 * - `container-restart`: same Pod UID and `restartCount` went up between two observations, or, from
 *   one observation, `restartCount > 0` with `lastState.terminated` (only the latest restart of a
 *   container is knowable: Kubernetes keeps one `lastState`).
 * - `pod-replacement`: per role, an old Pod disappeared (or turned terminal, as an evicted Pod does)
 *   and a new UID appeared; old and new are paired oldest-first. Needs two observations.
 * - `in-process`: from the agent's lines alone (`detectInProcess`).
 */
import type { RestartLine } from "./parse.ts";
import type { InstanceRef, Observation, ObservedContainer, ObservedPod, Transition } from "./types.ts";

export const instanceKey = (i: Pick<InstanceRef, "podUid" | "container" | "restartCount">): string =>
  `${i.podUid}:${i.container}:${i.restartCount}`;

const TERMINAL_PHASES = new Set(["Failed", "Succeeded"]);
/** A `restart-completed` this long after the container started cannot be its boot line. */
export const BOOT_WINDOW_MS = 10_000;

const byAge = (a: ObservedPod, b: ObservedPod): number =>
  (a.createdAt ?? "").localeCompare(b.createdAt ?? "") || a.name.localeCompare(b.name);

function containerRestart(pod: ObservedPod, c: ObservedContainer): Transition {
  const t = c.lastTermination;
  const ref = { pod: pod.name, podUid: pod.uid, container: c.name };
  return {
    scope: "container-restart",
    role: pod.role,
    plane: pod.plane,
    container: c.name,
    previous: {
      ...ref,
      restartCount: c.restartCount - 1,
      startedAt: t?.startedAt ?? null,
      finishedAt: t?.finishedAt ?? null,
    },
    next: { ...ref, restartCount: c.restartCount, startedAt: c.startedAt },
    termination: t,
    previousPod: pod,
    nextPod: pod,
  };
}

/** Container restarts visible in a single observation (what a status read records). */
export function detectSingle(obs: Observation): Transition[] {
  const out: Transition[] = [];
  for (const pod of obs.pods) {
    for (const c of pod.containers) {
      if (c.restartCount > 0 && c.lastTermination) out.push(containerRestart(pod, c));
    }
  }
  return out;
}

/**
 * Transitions between two successive observations of one deployment. Without a previous
 * observation this is `detectSingle`. Containers whose count did not move since `prev` yield
 * nothing, so a probe run does not re-attribute what it already recorded.
 */
export function detectBetween(prev: Observation | null, next: Observation): Transition[] {
  if (!prev) return detectSingle(next);
  const out: Transition[] = [];
  const prevByUid = new Map(prev.pods.map((p) => [p.uid, p]));
  const nextUids = new Set(next.pods.map((p) => p.uid));

  for (const pod of next.pods) {
    const before = prevByUid.get(pod.uid);
    for (const c of pod.containers) {
      const was = before?.containers.find((x) => x.name === c.name);
      const moved = was
        ? c.restartCount > was.restartCount
        : c.restartCount > 0 && c.lastTermination !== null;
      if (moved) out.push(containerRestart(pod, c));
    }
  }

  for (const role of ["gateway", "agent"] as const) {
    const gone = prev.pods
      .filter((p) => p.role === role && !TERMINAL_PHASES.has(p.phase))
      .filter((p) => {
        if (!nextUids.has(p.uid)) return true;
        const now = next.pods.find((x) => x.uid === p.uid);
        return now !== undefined && TERMINAL_PHASES.has(now.phase);
      })
      .map((p) => next.pods.find((x) => x.uid === p.uid) ?? p)
      .sort(byAge);
    const fresh = next.pods.filter((p) => p.role === role && !prevByUid.has(p.uid)).sort(byAge);
    const pairs = Math.min(gone.length, fresh.length);
    for (let i = 0; i < pairs; i++) {
      const oldPod = gone[i] as ObservedPod;
      const newPod = fresh[i] as ObservedPod;
      const oldSeen = prevByUid.get(oldPod.uid) ?? oldPod;
      for (const c of newPod.containers) {
        if (c.init) continue;
        const oldC = oldSeen.containers.find((x) => x.name === c.name);
        out.push({
          scope: "pod-replacement",
          role,
          plane: newPod.plane,
          container: c.name,
          previous: {
            pod: oldPod.name,
            podUid: oldPod.uid,
            container: c.name,
            restartCount: oldC?.restartCount ?? 0,
            startedAt: oldC?.startedAt ?? null,
            finishedAt: null,
          },
          next: {
            pod: newPod.name,
            podUid: newPod.uid,
            container: c.name,
            restartCount: 0,
            startedAt: c.restartCount === 0 ? c.startedAt : null,
          },
          termination: null,
          // Merge what the previous observation saw of the old Pod (its Events may be gone now).
          previousPod: mergePod(oldSeen, oldPod),
          nextPod: newPod,
        });
      }
    }
  }
  return out;
}

function mergePod(seen: ObservedPod, latest: ObservedPod): ObservedPod {
  if (seen === latest) return seen;
  const events = [...latest.events];
  for (const e of seen.events) {
    if (!events.some((x) => x.reason === e.reason && x.container === e.container)) events.push(e);
  }
  return {
    ...latest,
    statusReason: latest.statusReason ?? seen.statusReason,
    restartedAt: seen.restartedAt,
    events,
  };
}

const lineTime = (l: RestartLine): string | null => l.kubeletTime ?? l.agentTime;

/**
 * In-process restarts of one container instance, from its own lines (in log order). A
 * `restart-completed` is in-process when, in the same instance's lines, an open chain
 * (`restart-dispatch` or `restart-signal-received` not yet closed by a completion) precedes it, or
 * when it reports a new pid (`first_start=false`, both pids known and different) later than
 * `BOOT_WINDOW_MS` after the instance started. Otherwise it is the instance's boot line and belongs
 * to the container-level transition that created the instance.
 */
export function detectInProcess(
  pod: ObservedPod,
  container: ObservedContainer,
  lines: readonly RestartLine[],
): { transition: Transition; chain: RestartLine[] }[] {
  const out: { transition: Transition; chain: RestartLine[] }[] = [];
  const startedMs = container.startedAt ? Date.parse(container.startedAt) : Number.NaN;
  let open: RestartLine[] = [];
  for (const line of lines) {
    if (line.phase !== "completed") {
      open.push(line);
      continue;
    }
    const at = lineTime(line);
    const late =
      at !== null &&
      !Number.isNaN(startedMs) &&
      Date.parse(at) - startedMs > BOOT_WINDOW_MS &&
      line.firstStart !== true;
    const newPid = line.oldPid !== null && line.newPid !== null && line.oldPid !== line.newPid;
    if (open.length > 0 || (late && newPid)) {
      const chain = [...open, line];
      const signalLine = open.findLast((l) => l.phase === "signal-received");
      const ref = {
        pod: pod.name,
        podUid: pod.uid,
        container: container.name,
        restartCount: container.restartCount,
      };
      out.push({
        transition: {
          scope: "in-process",
          role: pod.role,
          plane: pod.plane,
          container: container.name,
          previous: {
            ...ref,
            startedAt: null,
            finishedAt: signalLine ? lineTime(signalLine) : null,
          },
          next: { ...ref, startedAt: at },
          termination: null,
          previousPod: pod,
          nextPod: pod,
        },
        chain,
      });
    }
    open = [];
  }
  return out;
}
