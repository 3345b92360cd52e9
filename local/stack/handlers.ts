/**
 * Loads the Lambda handlers lazily, the way a cold start would: only after the environment is set,
 * and once per stack (a per-stack query on the module URL gives each stack its own "container",
 * so a second stack in the same process never reuses the first one's clients). Invokes them with
 * the function's timeout, as Lambda does.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Context } from "aws-lambda";
import { FUNCTIONS, type FunctionName as ServiceFunctionName } from "../../lib/service/routes.ts";
import { applyEnvironment } from "./environment.ts";
import { createLambdaContext, DEFAULT_TIMEOUT_MS, FUNCTION_TIMEOUT_MS } from "./lambda-context.ts";

/** The functions the local stack runs (lib/service/routes.ts; the archive consumer needs a stream). */
export const FUNCTION_NAMES: readonly ServiceFunctionName[] = FUNCTIONS.filter((f) => f.local).map(
  (f) => f.name,
);
export type FunctionName = ServiceFunctionName;

export const isFunctionName = (name: string): name is FunctionName =>
  (FUNCTION_NAMES as readonly string[]).includes(name);

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

export class HandlerTimeoutError extends Error {
  override name = "HandlerTimeoutError";
}

export interface HandlerLoader {
  /** Whether the function's module (`functions/<fn>.ts`, or its bundle) exists yet. */
  exists(fn: FunctionName): boolean;
  load(fn: FunctionName): Promise<LambdaHandler>;
  /** Forgets the loaded handlers: the next request is a fresh cold start (new clients, empty caches). */
  reset(): void;
}

let instances = 0;

/**
 * `environment`, when given, is set on the process right before each cold start, so a handler
 * reads its own stack's configuration even when several stacks share one process (tests).
 */
export function createHandlerLoader(
  functionsDir: string,
  environment?: Record<string, string>,
  opts: { bundlesDir?: string } = {},
): HandlerLoader {
  const instance = ++instances;
  const cache = new Map<FunctionName, Promise<LambdaHandler>>();
  let attempts = 0;
  // With `bundlesDir`, the esbuild bundles as deployed (`<fn>/index.mjs`, Lambda's `index.handler`).
  const file = (fn: FunctionName) =>
    opts.bundlesDir ? join(opts.bundlesDir, fn, "index.mjs") : join(functionsDir, `${fn}.ts`);
  return {
    exists: (fn) => existsSync(file(fn)),
    reset: () => cache.clear(),
    load(fn) {
      let loading = cache.get(fn);
      if (!loading) {
        // ESM caches a failed module by URL: each attempt gets its own, so a fixed file loads.
        const url = `${pathToFileURL(file(fn)).href}?stack=${instance}&attempt=${++attempts}`;
        if (environment) applyEnvironment(environment);
        loading = import(/* @vite-ignore */ url).then((mod: { handler?: unknown }) => {
          if (typeof mod.handler !== "function") throw new Error(`${file(fn)} exports no handler`);
          return mod.handler as LambdaHandler;
        });
        // A failed import is retried on the next request (the file may be mid-edit).
        loading.catch(() => cache.delete(fn));
        cache.set(fn, loading);
      }
      return loading;
    },
  };
}

export interface InvokeOptions {
  awsRequestId?: string;
  nowMs?: () => number;
  timeoutMs?: number;
}

/** Runs one invocation; rejects with HandlerTimeoutError when the function's timeout passes. */
export async function invokeHandler(
  handler: LambdaHandler,
  fn: FunctionName,
  event: unknown,
  opts: InvokeOptions = {},
): Promise<unknown> {
  const timeoutMs = opts.timeoutMs ?? FUNCTION_TIMEOUT_MS[fn] ?? DEFAULT_TIMEOUT_MS;
  const context = createLambdaContext({
    fn,
    timeoutMs,
    ...(opts.nowMs ? { nowMs: opts.nowMs } : {}),
    ...(opts.awsRequestId ? { awsRequestId: opts.awsRequestId } : {}),
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HandlerTimeoutError(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([handler(event, context), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
