/**
 * The one place cluster HTTP happens: lib/http/client.ts over the KubeConfig's agent, a per-call
 * signal, a byte cap on the body and a call counter. Used by the client-node API objects (as their
 * HttpLibrary) and by the raw log read.
 */
import http from "node:http";
import https from "node:https";
import { performance } from "node:perf_hooks";
import { type Origin, poolFor, ResponseTooLarge, StaleConnectionError } from "../http/client.ts";
import { CallTimeoutError, OversizedResponse } from "./errors.ts";

export interface RawRequest {
  url: string;
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string;
  agent?: http.Agent;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body was longer than `maxBytes` and was cut there. */
  cut: boolean;
}

export interface SendOptions {
  /** The request's signal. */
  signal: AbortSignal;
  /**
   * The call's own time limit (callBudget), kept by the connection's timer instead of a signal of
   * its own: when it passes, the call fails with CallTimeoutError.
   */
  budget?: CallBudget;
  /** Body bytes kept. */
  maxBytes: number;
  /** Beyond `maxBytes`: cut the body (`cut: true`) or fail with OversizedResponse. */
  overflow: "cut" | "fail";
  onCall?: () => void;
}

/**
 * A kept-alive socket the server closed while it sat idle (or while Lambda froze the container)
 * fails on reuse before any response; such a request never reached the server's handler, so it
 * is sent once more on a fresh connection.
 */
export async function send(request: RawRequest, options: SendOptions): Promise<RawResponse> {
  const started = performance.now();
  try {
    return await sendOnce(request, options, options.budget?.ms);
  } catch (e) {
    if (e instanceof StaleConnectionError && !options.signal.aborted) {
      // The second attempt gets what is left of the call's time.
      const left = options.budget && Math.max(0, options.budget.ms - (performance.now() - started));
      return sendOnce(request, options, left);
    }
    throw e instanceof StaleConnectionError ? e.cause : e;
  }
}

/** Parsed origins (scheme, host, port, userinfo) by their text: a cluster's server parses once. */
const origins = new Map<string, ParsedOrigin>();
const MAX_ORIGINS = 256;

interface ParsedOrigin extends Origin {
  /** `authorization` for userinfo in the URL, as node:http would send it. */
  basicAuth?: string;
}

/** A URL's origin, parsed once, and its path and query as written (no fragment). */
export function requestTarget(url: string): { origin: ParsedOrigin; path: string } {
  const hostStart = url.indexOf("//");
  const slash = hostStart < 0 ? -1 : url.indexOf("/", hostStart + 2);
  const originText = slash < 0 ? url : url.slice(0, slash);
  let origin = origins.get(originText);
  if (!origin) {
    const parsed = new URL(originText);
    const https = parsed.protocol === "https:";
    if (!https && parsed.protocol !== "http:") throw new TypeError(`unsupported protocol ${parsed.protocol}`);
    origin = {
      https,
      hostname: parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname,
      port: parsed.port ? Number(parsed.port) : https ? 443 : 80,
      ...(parsed.username || parsed.password
        ? {
            basicAuth: `Basic ${Buffer.from(
              `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`,
            ).toString("base64")}`,
          }
        : {}),
    };
    if (origins.size >= MAX_ORIGINS) origins.clear();
    origins.set(originText, origin);
  }
  // The rest as URL would give it: a path always, no fragment.
  const rest = slash < 0 ? "/" : url.slice(slash);
  const hash = rest.indexOf("#");
  return { origin, path: hash < 0 ? rest : rest.slice(0, hash) };
}

async function sendOnce(
  request: RawRequest,
  options: SendOptions,
  timeoutMs: number | undefined,
): Promise<RawResponse> {
  options.onCall?.();
  const { origin, path } = requestTarget(request.url);
  const agent = request.agent ?? (origin.https ? https.globalAgent : http.globalAgent);
  const headers =
    origin.basicAuth !== undefined && request.headers.authorization === undefined
      ? { ...request.headers, authorization: origin.basicAuth }
      : request.headers;
  try {
    return await poolFor(agent, origin).request(
      {
        method: request.method,
        path,
        headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
      },
      {
        signal: options.signal,
        maxBytes: options.maxBytes,
        overflow: options.overflow,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      },
    );
  } catch (e) {
    if (e instanceof ResponseTooLarge) throw new OversizedResponse(e.message);
    // The connection's timer: the call's budget ran out.
    if (options.budget && (e as Error | null)?.name === "TimeoutError")
      throw new CallTimeoutError("cluster call timed out", options.budget.atDeadline);
    throw e;
  }
}

/** How long one cluster call may take, and whether that limit is the request deadline's. */
export interface CallBudget {
  ms: number;
  atDeadline: boolean;
}

/** `timeoutMs`, or the time left until `deadline` when that is no longer (the deadline's then). */
export function callBudget(timeoutMs: number, deadline: number, now: () => number): CallBudget {
  const left = deadline - now();
  const atDeadline = left <= timeoutMs;
  return { ms: Math.max(0, atDeadline ? left : timeoutMs), atDeadline };
}

/**
 * A signal for one cluster call: the request's signal, or a timer of `timeoutMs` (bounded by the
 * time left until `deadline`). The timer aborts with CallTimeoutError so the caller can tell it
 * apart; `dispose` clears it.
 */
export function callSignal(
  requestSignal: AbortSignal,
  timeoutMs: number,
  deadline: number,
  now: () => number,
): { signal: AbortSignal; dispose: () => void } {
  // One controller, aborted by the request's signal or the timer (cheaper than AbortSignal.any).
  const controller = new AbortController();
  if (requestSignal.aborted) {
    controller.abort(requestSignal.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const onAbort = () => controller.abort(requestSignal.reason);
  requestSignal.addEventListener("abort", onAbort, { once: true });
  const budget = callBudget(timeoutMs, deadline, now);
  const timer = setTimeout(
    () => controller.abort(new CallTimeoutError("cluster call timed out", budget.atDeadline)),
    budget.ms,
  );
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      requestSignal.removeEventListener("abort", onAbort);
    },
  };
}
