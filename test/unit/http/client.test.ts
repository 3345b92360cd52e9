/**
 * lib/http/client.ts: the response framing on generated answers cut at every possible place, the
 * answers it must refuse, and the pool against real servers (node:http, raw TCP, TLS): reuse,
 * stale connections, aborts, timeouts, byte caps and the request bytes it writes.
 */
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import tls from "node:tls";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  ConnectionPool,
  MalformedResponse,
  type Origin,
  poolFor,
  ResponseReader,
  ResponseTooLarge,
  renderRequest,
  StaleConnectionError,
} from "../../../lib/http/client.ts";
import { createSimPki } from "../../../local/openshell-sim/certs.ts";

const bytes = (text: string) => Buffer.from(text, "latin1");

/** Feeds `wire` to a reader in the given pieces; the answer, or null when it never completed. */
function read(
  wire: Buffer,
  cuts: number[],
  reader = new ResponseReader("GET", 1 << 20, "fail"),
  ended = false,
) {
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < wire.length)]
    .sort((a, b) => a - b)
    .concat(wire.length)) {
    if (cut <= at) continue;
    const result = reader.feed(wire.subarray(at, cut));
    at = cut;
    if (result) return { result, rest: wire.length - at };
  }
  return ended ? { result: reader.end(), rest: 0 } : null;
}

const headerName = fc.stringMatching(/^x-[a-z0-9-]{1,12}$/);
const headerValue = fc.stringMatching(/^[!-~]([ !-~]{0,20}[!-~])?$/);

describe("ResponseReader", () => {
  it("reads length, chunked and close-delimited answers whole, however the bytes are cut", () => {
    fc.assert(
      fc.property(
        fc.record({
          status: fc.integer({ min: 200, max: 599 }).filter((s) => s !== 204 && s !== 304),
          headers: fc.dictionary(headerName, headerValue, { maxKeys: 4 }),
          body: fc.uint8Array({ maxLength: 3000 }),
          framing: fc.constantFrom("length", "chunked", "close"),
          chunkSizes: fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 8 }),
          extension: fc.boolean(),
          trailers: fc.boolean(),
          informational: fc.boolean(),
          cuts: fc.array(fc.nat({ max: 4000 }), { maxLength: 12 }),
        }),
        (c) => {
          const body = Buffer.from(c.body);
          let head = c.informational ? "HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n" : "";
          head += `HTTP/1.1 ${c.status} Whatever\r\n`;
          for (const [k, v] of Object.entries(c.headers)) head += `${k.toUpperCase()}:  ${v} \r\n`;
          let payload: Buffer;
          if (c.framing === "length") {
            head += `Content-Length: ${body.length}\r\n`;
            payload = body;
          } else if (c.framing === "chunked") {
            head += "Transfer-Encoding: chunked\r\n";
            const parts: Buffer[] = [];
            for (let at = 0, i = 0; at < body.length; i++) {
              const size = Math.min(c.chunkSizes[i % c.chunkSizes.length] as number, body.length - at);
              const ext = c.extension ? ';name="v"' : "";
              parts.push(
                bytes(`${size.toString(16)}${ext}\r\n`),
                body.subarray(at, at + size),
                bytes("\r\n"),
              );
              at += size;
            }
            parts.push(bytes(c.trailers ? "0\r\nx-trailer: t\r\n\r\n" : "0\r\n\r\n"));
            payload = Buffer.concat(parts);
          } else {
            payload = body;
          }
          const wire = Buffer.concat([bytes(`${head}\r\n`), payload]);
          const got = read(wire, c.cuts, undefined, c.framing === "close");
          expect(got).not.toBeNull();
          const { response, reusable } = got!.result;
          expect(got!.rest).toBe(0);
          expect(response.status).toBe(c.status);
          expect(response.body.equals(body)).toBe(true);
          expect(response.cut).toBe(false);
          for (const [k, v] of Object.entries(c.headers)) expect(response.headers[k]).toBe(v);
          expect(reusable).toBe(c.framing !== "close");
        },
      ),
    );
  });

  it("cuts a body at maxBytes (the connection is not reused) or refuses it whole", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 2, maxLength: 2000 }),
        fc.nat(),
        fc.constantFrom("length", "chunked"),
        fc.array(fc.nat({ max: 2100 }), { maxLength: 6 }),
        (raw, n, framing, cuts) => {
          const body = Buffer.from(raw);
          const max = n % body.length;
          const wire =
            framing === "length"
              ? Buffer.concat([bytes(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`), body])
              : Buffer.concat([
                  bytes(
                    `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`,
                  ),
                  body,
                  bytes("\r\n0\r\n\r\n"),
                ]);
          const cut = read(wire, cuts, new ResponseReader("GET", max, "cut"));
          expect(cut?.result.response.cut).toBe(true);
          expect(cut?.result.response.body.equals(body.subarray(0, max))).toBe(true);
          expect(cut?.result.reusable).toBe(false);
          expect(() => read(wire, cuts, new ResponseReader("GET", max, "fail"))).toThrow(ResponseTooLarge);
        },
      ),
    );
  });

  it("knows the answers without a body, and what keeps a connection usable", () => {
    const head = (text: string) => read(bytes(text), [])?.result;
    expect(head("HTTP/1.1 204 No Content\r\n\r\n")).toMatchObject({
      response: { status: 204 },
      reusable: true,
    });
    expect(head("HTTP/1.1 304 Not Modified\r\ncontent-length: 12\r\n\r\n")?.response.body.length).toBe(0);
    expect(head("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")?.reusable).toBe(true);
    expect(
      read(bytes("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n"), [], new ResponseReader("HEAD", 10, "fail"))
        ?.result.response.body.length,
    ).toBe(0);
    expect(head("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: Close\r\n\r\n")?.reusable).toBe(false);
    expect(head("HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n")?.reusable).toBe(false);
    // Bytes after the answer: the connection's framing can no longer be trusted.
    expect(head("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n")?.reusable).toBe(false);
  });

  it("joins repeated headers as node:http does, keeping the first of single-valued ones", () => {
    const got = read(
      bytes(
        "HTTP/1.1 200 OK\r\nx-a: 1\r\nX-A: 2\r\ncontent-type: a/b\r\ncontent-type: c/d\r\ncontent-length: 0\r\n\r\n",
      ),
      [],
    );
    expect(got?.result.response.headers).toEqual({
      "x-a": "1, 2",
      "content-type": "a/b",
      "content-length": "0",
    });
  });

  it("refuses answers it cannot frame safely", () => {
    const refused = [
      "HTTP/2 200 OK\r\n\r\n",
      "HTTP/1.1 20 OK\r\n\r\n",
      "http/1.1 200 OK\r\n\r\n",
      "HTTP/1.1 101 Switching Protocols\r\n\r\n",
      "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
      "HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
      "HTTP/1.1 200 OK\r\n folded: value\r\n\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-length: 3\r\n\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: 1e3\r\n\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabXY",
      `HTTP/1.1 200 OK\r\nx-big: ${"a".repeat(17 * 1024)}`,
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1;${"e".repeat(2000)}`,
    ];
    for (const text of refused) expect(() => read(bytes(text), [7, 20]), text).toThrow(MalformedResponse);
    // An answer whose connection ends early.
    const short = new ResponseReader("GET", 100, "fail");
    expect(short.feed(bytes("HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nabc"))).toBeNull();
    expect(() => short.end()).toThrow(MalformedResponse);
  });
});

describe("renderRequest", () => {
  it("writes the request line, the host, the headers and the body with its length in bytes", () => {
    expect(
      renderRequest({ method: "POST", path: "/a?b=c", headers: { "x-t": "v 1" }, body: "é" }, "h:8000"),
    ).toBe("POST /a?b=c HTTP/1.1\r\nhost: h:8000\r\nx-t: v 1\r\ncontent-length: 2\r\n\r\né");
    expect(renderRequest({ method: "GET", path: "/", headers: { host: "signed:443" } }, "signed")).toBe(
      "GET / HTTP/1.1\r\nhost: signed:443\r\n\r\n",
    );
  });

  it("refuses what would split the head or the request line", () => {
    const bad = [
      { method: "GET", path: "/", headers: { "x-a": "v\r\nx-injected: 1" } },
      { method: "GET", path: "/", headers: { "x-a": "v\n" } },
      { method: "GET", path: "/", headers: { "x-a": "v\0" } },
      { method: "GET", path: "/", headers: { "bad name": "v" } },
      { method: "GET", path: "/", headers: { host: "h\r\nx: y" } },
      { method: "GET", path: "/a b", headers: {} },
      { method: "GET", path: "/a\r\n", headers: {} },
      { method: "G ET", path: "/", headers: {} },
      { method: "GET", path: "relative", headers: {} },
    ];
    for (const request of bad) expect(() => renderRequest(request, "h")).toThrow(TypeError);
  });
});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

/** A node:http server whose handler answers; counts the connections clients open. */
async function httpServer(handler: http.RequestListener) {
  let connections = 0;
  const server = http.createServer(handler);
  server.on("connection", () => connections++);
  const port = await listen(server);
  cleanups.push(() => server.closeAllConnections());
  return { port, server, connections: () => connections };
}

/** A raw TCP server: each connection's bytes go to `onData` with its socket. */
async function rawServer(onData: (socket: net.Socket, data: Buffer, n: number) => void) {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const n = ++connections;
    sockets.add(socket);
    socket.on("data", (d) => onData(socket, d, n));
    socket.on("error", () => {});
  });
  const port = await listen(server);
  cleanups.push(() => {
    for (const s of sockets) s.destroy();
  });
  return { port, connections: () => connections };
}

/** A keep-alive agent that remembers the sockets it opened. */
class RecordingAgent extends http.Agent {
  readonly opened: net.Socket[] = [];
  override createConnection(options: http.ClientRequestArgs): net.Socket {
    const socket = net.createConnection(options as net.NetConnectOpts);
    this.opened.push(socket);
    return socket;
  }
}

const keptAlive = () => {
  const agent = new RecordingAgent({ keepAlive: true });
  cleanups.push(() => agent.destroy());
  return agent;
};
const local = (port: number): Origin => ({ https: false, hostname: "127.0.0.1", port });
const get = (
  pool: ConnectionPool,
  path = "/",
  options: Partial<Parameters<ConnectionPool["request"]>[1]> = {},
) =>
  pool.request(
    { method: "GET", path, headers: { accept: "*/*" } },
    { maxBytes: 1 << 20, overflow: "fail", ...options },
  );

describe("ConnectionPool", () => {
  it("reuses one kept-alive connection for calls one after another, and reads node:http's chunks", async () => {
    const seen: string[] = [];
    const server = await httpServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        seen.push(
          `${req.method} ${req.url} ${req.headers.host} ${req.headers["content-length"] ?? "-"} ${body}`,
        );
        if (req.url === "/chunked") {
          res.write("first ");
          setImmediate(() => res.end("second"));
        } else res.end(`answer to ${req.url}`);
      });
    });
    const pool = poolFor(keptAlive(), local(server.port));
    expect((await get(pool, "/one")).body.toString()).toBe("answer to /one");
    const chunked = await get(pool, "/chunked");
    expect(chunked.headers["transfer-encoding"]).toBe("chunked");
    expect(chunked.body.toString()).toBe("first second");
    const posted = await pool.request(
      { method: "POST", path: "/post", headers: { "content-type": "text/plain" }, body: "ünï" },
      { maxBytes: 100, overflow: "fail" },
    );
    expect(posted.status).toBe(200);
    expect(server.connections()).toBe(1);
    expect(seen).toEqual([
      `GET /one 127.0.0.1:${server.port} - `,
      `GET /chunked 127.0.0.1:${server.port} - `,
      `POST /post 127.0.0.1:${server.port} 5 ünï`,
    ]);
  });

  it("opens a connection per call in parallel, and one per exchange for an agent without keep-alive", async () => {
    const server = await httpServer((_req, res) => setImmediate(() => res.end("ok")));
    const pool = poolFor(keptAlive(), local(server.port));
    await Promise.all([get(pool), get(pool), get(pool)]);
    expect(server.connections()).toBe(3);
    await get(pool);
    expect(server.connections()).toBe(3);

    const single = new ConnectionPool(new http.Agent({ keepAlive: false }), local(server.port));
    await get(single);
    await get(single);
    expect(server.connections()).toBe(5);
  });

  it("replaces a connection the server closed while it was idle", async () => {
    const server = await httpServer((_req, res) => res.end("ok"));
    const agent = keptAlive();
    const pool = poolFor(agent, local(server.port));
    await get(pool);
    const closed = new Promise((resolve) => agent.opened[0]?.once("close", resolve));
    server.server.closeIdleConnections();
    await closed;
    expect((await get(pool)).body.toString()).toBe("ok");
    expect(server.connections()).toBe(2);
  });

  it("calls a kept-alive connection that closes before any answer stale (the request may go again)", async () => {
    let requests = 0;
    const server = await rawServer((socket) => {
      if (++requests === 1) socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
      else socket.destroy();
    });
    const pool = poolFor(keptAlive(), local(server.port));
    await get(pool);
    const failed = await get(pool).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(StaleConnectionError);
    expect((failed as StaleConnectionError).code).toMatch(/^E[A-Z]+$/);
    // A fresh connection closed early is not stale: the server saw the request and said nothing.
    const fresh = await get(pool).catch((e: unknown) => e);
    expect(fresh).not.toBeInstanceOf(StaleConnectionError);
    expect(fresh).toBeInstanceOf(Error);
  });

  it("fails a malformed answer and does not read the connection again", async () => {
    const server = await rawServer((socket, _data, n) =>
      socket.write(
        n === 1
          ? "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
          : "HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nyes",
      ),
    );
    const pool = poolFor(keptAlive(), local(server.port));
    await expect(get(pool)).rejects.toBeInstanceOf(MalformedResponse);
    expect((await get(pool)).body.toString()).toBe("yes");
    expect(server.connections()).toBe(2);
  });

  it("cuts a long body at maxBytes and closes that connection", async () => {
    const server = await httpServer((_req, res) => res.end("x".repeat(10_000)));
    const pool = poolFor(keptAlive(), local(server.port));
    const cut = await get(pool, "/", { maxBytes: 100, overflow: "cut" });
    expect(cut).toMatchObject({ status: 200, cut: true });
    expect(cut.body.length).toBe(100);
    await expect(get(pool, "/", { maxBytes: 100, overflow: "fail" })).rejects.toBeInstanceOf(
      ResponseTooLarge,
    );
    expect((await get(pool)).body.length).toBe(10_000);
    expect(server.connections()).toBe(3);
  });

  it("stops a call when its signal aborts or its time is up, with the reason", async () => {
    const server = await rawServer(() => {}); // never answers
    const pool = poolFor(keptAlive(), local(server.port));
    const controller = new AbortController();
    const pending = get(pool, "/", { signal: controller.signal });
    setImmediate(() => controller.abort(new Error("deadline")));
    await expect(pending).rejects.toThrow("deadline");
    await expect(get(pool, "/", { signal: controller.signal })).rejects.toThrow("deadline");
    await expect(get(pool, "/", { timeoutMs: 10 })).rejects.toMatchObject({ name: "TimeoutError" });
  });

  it("speaks TLS with the agent's settings, and gives up on a handshake that never ends", async () => {
    const pki = await createSimPki();
    const server = https.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (_req, res) =>
      res.end("secure"),
    );
    const port = await listen(server);
    cleanups.push(() => server.closeAllConnections());
    const agent = new https.Agent({ keepAlive: true, ca: pki.caPem, servername: "localhost" });
    cleanups.push(() => agent.destroy());
    const pool = poolFor(agent, { https: true, hostname: "127.0.0.1", port });
    expect((await get(pool)).body.toString()).toBe("secure");

    const untrusting = new https.Agent({ keepAlive: true });
    await expect(get(poolFor(untrusting, { https: true, hostname: "127.0.0.1", port }))).rejects.toThrow();
    const wrongName = new https.Agent({ keepAlive: true, ca: pki.caPem, servername: "elsewhere.example" });
    await expect(get(poolFor(wrongName, { https: true, hostname: "127.0.0.1", port }))).rejects.toThrow();

    const silent = await rawServer(() => {}); // accepts TCP, never speaks TLS
    const stuck = poolFor(agent, { https: true, hostname: "127.0.0.1", port: silent.port });
    await expect(get(stuck, "/", { connectTimeoutMs: 10 })).rejects.toMatchObject({ name: "TimeoutError" });
  });
});

describe("TLS name", () => {
  it("sends the host as SNI unless it is an address", async () => {
    const names: (string | false)[] = [];
    const pki = await createSimPki();
    const server = tls.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (socket) => {
      names.push((socket as tls.TLSSocket & { servername: string | false }).servername);
      socket.resume();
      socket.end("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
    });
    const port = await listen(server);
    const agent = new https.Agent({ keepAlive: true, ca: pki.caPem });
    cleanups.push(() => agent.destroy());
    await get(poolFor(agent, { https: true, hostname: "localhost", port }));
    await get(poolFor(agent, { https: true, hostname: "127.0.0.1", port })).catch(() => {});
    expect(names).toEqual(["localhost", false]);
  });
});
