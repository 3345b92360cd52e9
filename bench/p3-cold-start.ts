/**
 * P3 cold start (docs/quality.md): bundles each function as the stack does, reports its size and
 * the median time of `import()` of the bundle in a fresh Node process (the module-load part of a
 * Lambda cold start), with `--enable-source-maps` as deployed; and `health_cold_ms`, the median
 * time from a fresh process's first line to the `/health` answer of the function that serves it
 * (import + first invocation). Targets: ≤ 3 MiB, import ≤ 200 ms median, `/health` cold ≤ 250 ms.
 * CPU times (user + system of the process over the same span) are reported beside the wall times:
 * on a machine shared with other work, wall time measures the queue as much as the code.
 *
 * `runP3ColdStart()` returns the one JSON row; bench/run.ts prints it. Run alone:
 * `npx tsx bench/p3-cold-start.ts`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { bundleFunction, MAX_BUNDLE_BYTES } from "../infra/bundle.ts";
import { FUNCTIONS, type FunctionName, REPO_ROOT } from "../infra/functions.ts";
import { ENV } from "../lib/config.ts";
import { ROUTES as SERVICE_ROUTES } from "../lib/service/routes.ts";
import { ROUTES as LOCAL_ROUTES } from "../local/stack/routes.ts";

export const P3_TARGET = { maxMiB: 3, maxImportMedianMs: 200, healthColdMs: 250 } as const;

export interface P3FunctionFigures {
  /** The whole function (entry and chunks). */
  bytes: number;
  mib: number;
  /** The entry module, what `import()` parses; chunks load with the first request. */
  entry_bytes: number;
  import_median_ms: number;
  import_cpu_median_ms: number;
  import_runs_ms: number[];
}

export interface P3Row {
  bench: "P3 cold start";
  max_mib: number;
  max_import_median_ms: number;
  /** Median ms from a fresh process's first line to the `/health` answer (import + first invocation). */
  health_cold_ms: number;
  health_cold_cpu_ms: number;
  health_function: string;
  /** `import("zod")` (a fixed, pinned package) in the same run: the machine's noise reference. */
  baseline_import_median_ms: number;
  ratio_to_baseline: number;
  target_mib: number;
  target_import_ms: number;
  target_health_cold_ms: number;
  runs: number;
  pass: boolean;
  functions: Record<FunctionName, P3FunctionFigures>;
}

/** A configuration the functions accept at import (nothing is called: no AWS access happens). */
const IMPORT_ENV: Record<string, string> = {
  [ENV.enabled]: "true",
  [ENV.registryTable]: "bench-registry",
  [ENV.stateTable]: "bench-state",
  [ENV.auditTable]: "bench-audit",
  [ENV.cursorKeySecret]: "arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-cursor",
  [ENV.identityKeySecret]: "arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-identity",
  [ENV.auditArchiveBucket]: "bench-archive",
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "bench",
  AWS_SECRET_ACCESS_KEY: "bench",
  NODE_OPTIONS: "--enable-source-maps",
};

interface Timing {
  wallMs: number;
  cpuMs: number;
}

/** Runs `body` (an ES module snippet) in a fresh process; it prints `wall cpu` in ms. */
function timeFresh(body: string): Timing {
  const script = [
    "const cpu0 = process.cpuUsage(); const t0 = performance.now();",
    body,
    "const cpu = process.cpuUsage(cpu0);",
    'process.stdout.write("\\nP3 " + (performance.now() - t0) + " " + (cpu.user + cpu.system) / 1000 + "\\n");',
  ].join("\n");
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", ...IMPORT_ENV },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
  });
  // The handler's own log lines share stdout; the figures are on the line this script marks.
  const line = out.split("\n").findLast((l) => l.startsWith("P3 ")) ?? "";
  const [wallMs, cpuMs] = line.slice(3).split(" ").map(Number);
  if (!Number.isFinite(wallMs) || !Number.isFinite(cpuMs)) throw new Error(`no timing in: ${out}`);
  return { wallMs: wallMs!, cpuMs: cpuMs! };
}

/** Time one `import()` of `specifier` in a fresh process. */
const timeImport = (specifier: string): Timing => timeFresh(`await import(${JSON.stringify(specifier)});`);

/** A cold container's `/health`: import the bundle and answer one API Gateway event. */
function timeHealth(bundleUrl: string): Timing {
  const event = {
    version: "2.0",
    routeKey: SERVICE_ROUTES.health,
    rawPath: "/health",
    rawQueryString: "",
    headers: { host: "bench" },
    requestContext: {
      accountId: "000000000000",
      apiId: "bench",
      domainName: "bench",
      http: {
        method: "GET",
        path: "/health",
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: "bench",
      },
      requestId: "bench",
      routeKey: SERVICE_ROUTES.health,
      stage: "$default",
      time: "01/Dec/2026:00:00:00 +0000",
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
  const context =
    '{ awsRequestId: "00000000-0000-4000-8000-000000000000", functionName: "bench", getRemainingTimeInMillis: () => 10000 }';
  return timeFresh(
    [
      `const { handler } = await import(${JSON.stringify(bundleUrl)});`,
      `const res = await handler(${JSON.stringify(event)}, ${context});`,
      'if (res.statusCode !== 200) throw new Error("/health answered " + res.statusCode);',
    ].join("\n"),
  );
}

/** The function behind `GET /health` (the route table the local stack and the docs share). */
const HEALTH_FUNCTION = LOCAL_ROUTES.find((r) => r.routeKey === SERVICE_ROUTES.health)!.fn;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

export async function runP3ColdStart(options: { runs?: number } = {}): Promise<P3Row> {
  const runs = options.runs ?? 7;
  const outdir = mkdtempSync(path.join(tmpdir(), "runtime-logs-p3-"));
  try {
    const baseline = median(Array.from({ length: runs }, () => timeImport("zod").wallMs));
    const functions = {} as Record<FunctionName, P3FunctionFigures>;
    let healthUrl: string | undefined;
    for (const { name } of FUNCTIONS) {
      const bundle = await bundleFunction(name, outdir);
      const url = pathToFileURL(bundle.file).href;
      timeImport(url); // warm the OS file cache; V8 keeps nothing between processes
      const times = Array.from({ length: runs }, () => timeImport(url));
      functions[name] = {
        bytes: bundle.bytes,
        mib: round(bundle.bytes / 1024 / 1024, 3),
        entry_bytes: bundle.entryBytes,
        import_median_ms: round(median(times.map((t) => t.wallMs))),
        import_cpu_median_ms: round(median(times.map((t) => t.cpuMs))),
        import_runs_ms: times.map((t) => round(t.wallMs, 1)),
      };
      if (name === HEALTH_FUNCTION) healthUrl = url;
    }
    if (!healthUrl) throw new Error(`no bundle for ${HEALTH_FUNCTION}, the function behind /health`);
    const url = healthUrl;
    const health = Array.from({ length: runs }, () => timeHealth(url));
    const healthCold = median(health.map((t) => t.wallMs));
    const figures = Object.values(functions);
    const maxMiB = Math.max(...figures.map((f) => f.mib));
    const maxImport = Math.max(...figures.map((f) => f.import_median_ms));
    return {
      bench: "P3 cold start",
      max_mib: maxMiB,
      max_import_median_ms: maxImport,
      health_cold_ms: round(healthCold),
      health_cold_cpu_ms: round(median(health.map((t) => t.cpuMs))),
      health_function: HEALTH_FUNCTION,
      baseline_import_median_ms: round(baseline),
      ratio_to_baseline: round(maxImport / baseline),
      target_mib: P3_TARGET.maxMiB,
      target_import_ms: P3_TARGET.maxImportMedianMs,
      target_health_cold_ms: P3_TARGET.healthColdMs,
      runs,
      pass:
        figures.every((f) => f.bytes <= MAX_BUNDLE_BYTES) &&
        maxImport <= P3_TARGET.maxImportMedianMs &&
        healthCold <= P3_TARGET.healthColdMs,
      functions,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.stdout.write(`${JSON.stringify(await runP3ColdStart())}\n`);
}
