/**
 * An optional CPU profile of a bench's measured windows, by the inspector's sampling profiler in
 * process: with `BENCH_CPU_PROFILE=<path>`, window i is written to `<path>.<i>.cpuprofile` (Chrome
 * DevTools opens it). A sample's time includes any wait for a CPU, so on a loaded machine count
 * samples rather than add up their times. Unset, nothing runs.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

export interface WindowProfiler {
  /** Starts sampling a window. */
  start(): Promise<void>;
  /** Stops sampling and writes the window's profile. */
  stop(): Promise<void>;
}

/** Microseconds between samples. */
const SAMPLING_INTERVAL_US = 100;

export function windowProfiler(path = process.env.BENCH_CPU_PROFILE): WindowProfiler | null {
  if (!path) return null;
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  let windows = 0;
  return {
    async start() {
      await post("Profiler.enable");
      await post("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
      await post("Profiler.start");
    },
    async stop() {
      const { profile } = (await post("Profiler.stop")) as { profile: unknown };
      writeFileSync(`${path}.${windows++}.cpuprofile`, JSON.stringify(profile));
    },
  };
}
