/**
 * The local API Gateway: an HTTP server on loopback that routes like the HTTP API, turns each
 * routed request into a payload-2.0 event for the real handler, and writes the handler's result
 * back. Also serves what only the local stack has: `/__local/principals`, the favicon and the
 * console.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { FAVICON_CONTENT_TYPE, FAVICON_ICO } from "../../console/favicon.ts";
import type { ConsoleAssets } from "./console-assets.ts";
import {
  type FunctionName,
  type HandlerLoader,
  HandlerTimeoutError,
  invokeHandler,
  type LambdaHandler,
} from "./handlers.ts";
import { buildHttpApiEvent, splitTarget } from "./http-api-event.ts";
import {
  fromLambdaResult,
  type HttpResponse,
  INTERNAL_ERROR,
  NOT_FOUND,
  SERVICE_UNAVAILABLE,
} from "./http-api-response.ts";
import { matchRoute } from "./routes.ts";

export interface ApiServerOptions {
  handlers: HandlerLoader;
  consoleAssets: ConsoleAssets;
  /** Principal IDs the scenario grants (for the console's sign-in). */
  principals(): string[];
  /** False until stack.json is written: requests get 503 until then. */
  isReady(): boolean;
  log(line: string): void;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** An API Gateway-style request ID (`JKJaXmPLvHcESHA=`). */
export const newGatewayRequestId = (): string => randomBytes(11).toString("base64");

const SECURITY_HEADERS = { "cache-control": "no-store", "x-content-type-options": "nosniff" };

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("request body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length > 0 ? Buffer.concat(chunks).toString("utf8") : undefined));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, response: HttpResponse, method: string): void {
  res.statusCode = response.statusCode;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader("content-length", response.body.length);
  res.end(method === "HEAD" ? undefined : response.body);
}

/** The `/health` answer while functions/status.ts does not exist yet. */
function healthFallback(): HttpResponse {
  const requestId = `req_${randomUUID()}`;
  return {
    statusCode: 200,
    headers: { "content-type": "application/json", ...SECURITY_HEADERS, "x-request-id": requestId },
    body: Buffer.from(
      JSON.stringify({
        data: { status: "ok", local: true, note: "functions/status.ts is not written yet" },
        meta: { requestId },
      }),
    ),
  };
}

export function createApiServer(opts: ApiServerOptions): Server {
  async function invoke(req: IncomingMessage, fn: FunctionName, event: unknown): Promise<HttpResponse> {
    if (!opts.handlers.exists(fn)) {
      opts.log(`${fn}: functions/${fn}.ts does not exist yet`);
      return INTERNAL_ERROR();
    }
    let handler: LambdaHandler;
    try {
      handler = await opts.handlers.load(fn);
    } catch (err) {
      opts.log(`${fn}: the function failed to load (cold start)`);
      console.error(err);
      return INTERNAL_ERROR();
    }
    try {
      return fromLambdaResult(await invokeHandler(handler, fn, event));
    } catch (err) {
      const what = err instanceof HandlerTimeoutError ? err.message : "the function threw";
      opts.log(`${fn}: ${what} on ${req.method} ${splitTarget(req.url ?? "/").rawPath}`);
      if (!(err instanceof HandlerTimeoutError)) console.error(err);
      return INTERNAL_ERROR();
    }
  }

  async function respond(req: IncomingMessage): Promise<HttpResponse> {
    const method = req.method ?? "GET";
    const target = req.url ?? "/";
    const { rawPath } = splitTarget(target);
    if (!opts.isReady()) return SERVICE_UNAVAILABLE();
    const body = await readBody(req);

    const match = matchRoute(method, rawPath);
    if (match) {
      const fn = match.route.fn;
      if (match.route.routeKey === "GET /health" && !opts.handlers.exists(fn)) return healthFallback();
      const requestId = newGatewayRequestId();
      const event = buildHttpApiEvent(
        {
          method,
          target,
          rawHeaders: req.rawHeaders,
          sourceIp: (req.socket.remoteAddress ?? "127.0.0.1").replace(/^::ffff:/, ""),
          protocol: `HTTP/${req.httpVersion}`,
          ...(body !== undefined ? { body } : {}),
        },
        { route: match, requestId, now: new Date() },
      );
      const response = await invoke(req, fn, event);
      response.headers["apigw-requestid"] = requestId;
      return response;
    }

    if (method !== "GET" && method !== "HEAD") return NOT_FOUND();
    if (rawPath === "/favicon.ico") {
      return {
        statusCode: 200,
        headers: { "content-type": FAVICON_CONTENT_TYPE, "cache-control": "public, max-age=86400" },
        body: FAVICON_ICO,
      };
    }
    if (rawPath === "/__local/principals") {
      return {
        statusCode: 200,
        headers: { "content-type": "application/json", ...SECURITY_HEADERS },
        body: Buffer.from(JSON.stringify({ principals: opts.principals() })),
      };
    }
    const asset = await opts.consoleAssets.get(rawPath);
    if (asset) {
      return {
        statusCode: 200,
        headers: { "content-type": asset.contentType, ...SECURITY_HEADERS },
        body: asset.body,
      };
    }
    return NOT_FOUND();
  }

  return createServer((req, res) => {
    const started = performance.now();
    const method = req.method ?? "GET";
    respond(req)
      .catch((err: unknown) => {
        console.error(err);
        return INTERNAL_ERROR();
      })
      .then((response) => {
        send(res, response, method);
        // Paths only: query strings may carry cursors.
        const ms = (performance.now() - started).toFixed(0);
        opts.log(`${method} ${splitTarget(req.url ?? "/").rawPath} → ${response.statusCode} (${ms} ms)`);
      });
  });
}
