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

function sendOnce(request: RawRequest, options: SendOptions): Promise<RawResponse> {
  options.onCall?.();
  const url = new URL(request.url);
  const lib = url.protocol === "https:" ? https : http;
  return new Promise<RawResponse>((resolve, reject) => {
    if (options.signal.aborted) {
      reject(options.signal.reason ?? new CallTimeoutError("aborted"));
      return;
    }
    const req = lib.request(
      url,
      {
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
  const controller = new AbortController();
  const wait = Math.max(0, Math.min(timeoutMs, deadline - now()));
  const timer = setTimeout(() => controller.abort(new CallTimeoutError("cluster call timed out")), wait);
  return {
    signal: AbortSignal.any([requestSignal, controller.signal]),
    dispose: () => clearTimeout(timer),
  };
}
