/** Benchmark knobs from the environment: positive integers only, anything else is the default. */
export function envInt(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || !/^[0-9]{1,9}$/.test(raw)) return fallback;
  const n = Number(raw);
  return n > 0 ? n : fallback;
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    if (ms <= 0) resolve();
    else setTimeout(resolve, ms);
  });
