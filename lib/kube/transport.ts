/**
 * The one place cluster HTTP happens: node:http(s) with the KubeConfig's agent, a per-call signal,
 * a byte cap on the body and a call counter. Used by the client-node API objects (as their
 * HttpLibrary) and by the raw log read.
 */
import http from "node:http";
import https from "node:https";
import { CallTimeoutError, OversizedResponse } from "./errors.ts";

export interface RawRequest {
  url: string;
  method: string;
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
  signal: AbortSignal;
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
const STALE_SOCKET = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

export async function send(request: RawRequest, options: SendOptions): Promise<RawResponse> {
  try {
    return await sendOnce(request, options);
  } catch (e) {
    if (e instanceof StaleSocketError && !options.signal.aborted) return sendOnce(request, options);
    throw e instanceof StaleSocketError ? e.cause : e;
  }
}

class StaleSocketError extends Error {
  override name = "StaleSocketError";
}

interface Origin {
  https: boolean;
  options: http.RequestOptions;
}

/** Parsed origins (scheme, host, port, userinfo) by their text: a cluster's server parses once. */
const origins = new Map<string, Origin>();
const MAX_ORIGINS = 256;

/** The request options of a URL: its origin's, parsed once, and its path and query as written. */
export function requestTarget(url: string): { origin: Origin; path: string } {
  const hostStart = url.indexOf("//");
  const slash = hostStart < 0 ? -1 : url.indexOf("/", hostStart + 2);
  const originText = slash < 0 ? url : url.slice(0, slash);
  let origin = origins.get(originText);
  if (!origin) {
    const parsed = new URL(originText);
    const hostname = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
    origin = {
      https: parsed.protocol === "https:",
      options: {
        protocol: parsed.protocol,
        hostname,
        ...(parsed.port ? { port: Number(parsed.port) } : {}),
        ...(parsed.username || parsed.password
          ? { auth: `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}` }
          : {}),
      },
    };
    if (origins.size >= MAX_ORIGINS) origins.clear();
    origins.set(originText, origin);
  }
  // The rest as URL would give it: a path always, no fragment.
  const rest = slash < 0 ? "/" : url.slice(slash);
  const hash = rest.indexOf("#");
  return { origin, path: hash < 0 ? rest : rest.slice(0, hash) };
}

function sendOnce(request: RawRequest, options: SendOptions): Promise<RawResponse> {
  options.onCall?.();
  const { origin, path } = requestTarget(request.url);
  const lib = origin.https ? https : http;
  return new Promise<RawResponse>((resolve, reject) => {
    if (options.signal.aborted) {
      reject(options.signal.reason ?? new CallTimeoutError("aborted"));
      return;
    }
    const req = lib.request(
      {
        ...origin.options,
        path,
        method: request.method,
        headers: request.headers,
        signal: options.signal,
        ...(request.agent ? { agent: request.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let settled = false;
        const finish = (cut: boolean) => {
          if (settled) return;
          settled = true;
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) {
            if (typeof v === "string") headers[k] = v;
          }
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks, size), cut });
        };
        res.on("data", (chunk: Buffer) => {
          if (settled) return;
          const room = options.maxBytes - size;
          if (chunk.length <= room) {
            chunks.push(chunk);
            size += chunk.length;
            return;
          }
          if (options.overflow === "fail") {
            settled = true;
            res.destroy();
            reject(new OversizedResponse(`response body over ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk.subarray(0, room));
          size += room;
          finish(true);
          res.destroy();
        });
        res.on("end", () => finish(false));
        res.on("error", (e) => {
          if (!settled) {
            settled = true;
            reject(e);
          }
        });
        res.on("close", () => {
          if (!settled) {
            settled = true;
            reject(options.signal.aborted ? options.signal.reason : new Error("connection closed"));
          }
        });
      },
    );
    let responded = false;
    req.on("response", () => {
      responded = true;
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      if (options.signal.aborted) return reject(options.signal.reason ?? e);
      if (!responded && req.reusedSocket && STALE_SOCKET.has(e.code ?? "")) {
        return reject(new StaleSocketError("kept-alive socket was closed", { cause: e }));
      }
      reject(e);
    });
    if (request.body !== undefined) req.write(request.body);
    req.end();
  });
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
  const wait = Math.max(0, Math.min(timeoutMs, deadline - now()));
  const timer = setTimeout(() => controller.abort(new CallTimeoutError("cluster call timed out")), wait);
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      requestSignal.removeEventListener("abort", onAbort);
    },
  };
}
