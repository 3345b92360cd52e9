/**
 * The simulator's HTTP server: clusters under `/clusters/{id}`, the admin API under `/__sim/`
 * (loopback peers only). Cluster requests pass through the cluster's faults first: unreachable
 * (socket destroyed), latency (real timer, also released by the manual clock; cancelled on close),
 * forced status, seeded fail rate.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { msToNs } from "../scenario/time.ts";
import {
  type ApiResponse,
  classify,
  handleClusterRequest,
  type RequestKind,
  statusResponse,
} from "./cluster-api.ts";
import { statusReason } from "./objects.ts";
import type { World } from "./world.ts";

export type KindCounts = Record<RequestKind, number> & { requests: number };
export interface SimStats {
  total: KindCounts;
  clusters: Record<string, KindCounts>;
}

export function emptyCounts(): KindCounts {
  return {
    requests: 0,
    discovery: 0,
    podLists: 0,
    podGets: 0,
    logReads: 0,
    eventLists: 0,
    ssar: 0,
    other: 0,
  };
}

export interface SimServerHooks {
  world(): World;
  admin(req: IncomingMessage, path: string, body: string): Promise<ApiResponse>;
}

const MAX_BODY = 8 * 1024 * 1024;
const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && (LOOPBACK.has(address) || address.startsWith("127."));
}

const LOOPBACK_ORIGIN = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/;

/** An `Origin` header that names a loopback page (any port), or none at all (not a browser). */
export function isLoopbackOrigin(origin: string | undefined): boolean {
  return origin === undefined || LOOPBACK_ORIGIN.test(origin);
}

/** `application/json`, parameters (charset) allowed. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  return value.split(";")[0]!.trim().toLowerCase() === "application/json";
}

const adminError = (status: number, error: string): ApiResponse => ({
  status,
  contentType: "application/json",
  body: JSON.stringify({ ok: false, error }),
});

/**
 * Every admin route (the kube admin API and any later one under `/__sim/`): a non-loopback `Origin`
 * is 403, a request that is not a read without a JSON body is 415. Null when the request may pass.
 */
export function refuseAdmin(req: Pick<IncomingMessage, "method" | "headers">): ApiResponse | null {
  const origin = req.headers.origin;
  if (Array.isArray(origin) || !isLoopbackOrigin(origin)) {
    return adminError(403, "the admin API refuses requests from non-loopback origins");
  }
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD" && !isJsonContentType(req.headers["content-type"])) {
    return adminError(415, "the admin API accepts only content-type: application/json");
  }
  return null;
}

interface PendingDelay {
  finish(ok: boolean): void;
}

export class SimServer {
  readonly server: Server;
  private readonly hooks: SimServerHooks;
  private readonly sockets = new Set<Socket>();
  private readonly delays = new Set<PendingDelay>();
  private statsData: SimStats = { total: emptyCounts(), clusters: {} };
  private closed = false;

  constructor(hooks: SimServerHooks) {
    this.hooks = hooks;
    this.server = createServer((req, res) => {
      this.dispatch(req, res).catch(() => {
        if (!res.headersSent) send(res, statusResponse(500, "Internal error occurred"));
        else res.destroy();
      });
    });
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  stats(): SimStats {
    return structuredClone(this.statsData);
  }

  resetStats(): void {
    this.statsData = { total: emptyCounts(), clusters: {} };
  }

  /** Releases pending latencies whose time has come on the simulator's clock (manual clocks). */
  clockMoved(): void {
    for (const d of [...this.delays]) d.finish(true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const d of [...this.delays]) d.finish(false);
    const done = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    for (const s of this.sockets) s.destroy();
    await done;
  }

  private count(clusterId: string, kind: RequestKind): void {
    const per = this.statsData.clusters[clusterId] ?? emptyCounts();
    this.statsData.clusters[clusterId] = per;
    for (const c of [per, this.statsData.total]) {
      c[kind] += 1;
      c.requests += 1;
    }
  }

  /** Waits `ms` of real time, or until a manual clock passes the same span; false when cancelled. */
  private delay(ms: number, world: World): Promise<boolean> {
    const startNs = world.nowNs();
    const dueNs = startNs + msToNs(ms);
    return new Promise((resolve) => {
      const pending: PendingDelay = {
        finish: (ok) => {
          if (ok && timer !== null && world.nowNs() < dueNs) return;
          clearTimeout(timer ?? undefined);
          timer = null;
          this.delays.delete(pending);
          resolve(ok);
        },
      };
      let timer: NodeJS.Timeout | null = setTimeout(() => {
        timer = null;
        pending.finish(true);
      }, ms);
      this.delays.add(pending);
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname;
    if (path === "/__sim" || path.startsWith("/__sim/")) {
      if (!isLoopback(req.socket.remoteAddress)) {
        send(res, statusResponse(403, "the admin API only answers loopback clients"));
        return;
      }
      // The admin API changes the world: a page in the operator's browser must not reach it.
      const refused = refuseAdmin(req);
      if (refused !== null) {
        req.resume();
        send(res, refused);
        return;
      }
      const body = await readBody(req);
      if (body === null) {
        send(res, statusResponse(413, "request entity too large"));
        return;
      }
      send(res, await this.hooks.admin(req, path.slice("/__sim".length) || "/", body.toString("utf8")));
      return;
    }
    const m = /^\/clusters\/([^/]+)(\/.*)?$/.exec(path);
    const world = this.hooks.world();
    const cluster = m ? world.clusters.get(decodeURIComponent(m[1] as string)) : undefined;
    if (!m || !cluster) {
      send(res, statusResponse(404, "the server could not find the requested resource", {}));
      return;
    }
    const subPath = m[2] ?? "/";
    this.count(cluster.id, classify(subPath));
    if (cluster.faults.unreachable) {
      req.socket.destroy();
      return;
    }
    const body = await readBody(req);
    if (cluster.faults.latencyMs > 0) {
      const ok = await this.delay(cluster.faults.latencyMs, world);
      if (!ok) {
        req.socket.destroy();
        return;
      }
    }
    // The fault may have changed while the request waited.
    if (cluster.faults.unreachable) {
      req.socket.destroy();
      return;
    }
    if (cluster.faults.status !== null) {
      const code = cluster.faults.status;
      send(res, statusResponse(code, `simulated fault: ${statusReason(code)}`));
      return;
    }
    if (cluster.faults.failRate > 0 && cluster.random() < cluster.faults.failRate) {
      send(res, statusResponse(500, "Internal error occurred: simulated failure"));
      return;
    }
    if (body === null) {
      send(res, statusResponse(413, "request entity too large"));
      return;
    }
    const response = handleClusterRequest(world, cluster, {
      method: req.method ?? "GET",
      path: subPath,
      query: url.searchParams,
      authorization: req.headers.authorization,
      body,
      host: req.headers.host ?? "127.0.0.1",
      userAgent: req.headers["user-agent"],
    });
    send(res, response);
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooBig = false;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) tooBig = true;
    else chunks.push(buf);
  }
  return tooBig ? null : Buffer.concat(chunks);
}

function send(res: ServerResponse, response: ApiResponse): void {
  if (res.destroyed) return;
  const body = typeof response.body === "string" ? Buffer.from(response.body, "utf8") : response.body;
  res.writeHead(response.status, {
    "Content-Type": response.contentType,
    "Content-Length": body.length,
    "Cache-Control": "no-cache, private",
  });
  res.end(body);
}
