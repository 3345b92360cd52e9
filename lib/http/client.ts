/**
 * Outbound HTTP/1.1 for the calls every poll makes (DynamoDB's item calls; the cluster's Pod list,
 * log read and Pod re-read): a request is one write on a kept-alive socket, and its response is
 * framed here (status line, headers, then `Content-Length`, chunks or the connection's end) by a
 * socket's one set of listeners. Node's http client builds a request, a response stream and an
 * agent round trip of events per exchange: most of a warm poll's CPU outside the page once the
 * SDK's middleware was gone (docs/quality.md P4).
 *
 * Connections are opened by an `http.Agent` or `https.Agent` (its `createConnection` with its own
 * options, so TLS settings stay where they are made), pooled per agent and origin, newest reused
 * first, closed by the agent's idle `timeout`; the agent's `maxSockets` is not applied (a container
 * serves one request at a time: at most two calls at once). An answer that breaks the framing
 * rules fails its call and closes its connection: nothing after it is read as another answer.
 */
import type http from "node:http";
import { isIP, type Socket } from "node:net";

export interface Origin {
  https: boolean;
  /** Without brackets for IPv6. */
  hostname: string;
  port: number;
}

export interface OutboundRequest {
  method: string;
  /** The request target: path and query, as sent. */
  path: string;
  /** Lower-case names; `content-length` is set here, and `host` (the origin's) unless given. */
  headers: Readonly<Record<string, string>>;
  body?: string;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names; a repeated header joined with `, ` (the first kept for single-valued ones). */
  headers: Record<string, string>;
  body: Buffer;
  /** The body was longer than `maxBytes` and was cut there. */
  cut: boolean;
}

export interface ExchangeOptions {
  signal?: AbortSignal | undefined;
  /** Body bytes kept. */
  maxBytes: number;
  /** Beyond `maxBytes`: cut the body (`cut: true`) or fail with ResponseTooLarge. */
  overflow: "cut" | "fail";
  /** The whole answer must have come within this, else a `TimeoutError`. */
  timeoutMs?: number;
  /** A new connection must be established within this, else a `TimeoutError`. */
  connectTimeoutMs?: number;
}

/** A response body larger than the call allows. */
export class ResponseTooLarge extends Error {
  override name = "ResponseTooLarge";
}

/** The answer broke HTTP/1.1's framing or its limits; its connection is closed. */
export class MalformedResponse extends Error {
  override name = "MalformedResponse";
}

/**
 * A kept-alive connection closed before any byte of the answer came (the server dropped it while
 * it sat idle, or Lambda froze the container): the server never answered, so the request may go
 * again on a fresh one. `code` is the socket's, so retry classifiers see a reset.
 */
export class StaleConnectionError extends Error {
  override name = "StaleConnectionError";
  readonly code: string;
  constructor(cause: unknown) {
    super("kept-alive connection was closed", { cause });
    const code = (cause as { code?: unknown } | null)?.code;
    this.code = typeof code === "string" ? code : "ECONNRESET";
  }
}

/** Named as the SDK's retry rules and our error mapping recognise a timeout. */
const timeoutError = (message: string) => Object.assign(new Error(message), { name: "TimeoutError" });

/** The most a status line and headers (or trailers) may take: Node's own parser's limit. */
const MAX_HEAD_BYTES = 16 * 1024;
/** Each byte's value as a hex digit, or -1. */
const HEX_VALUE = Int8Array.from({ length: 256 }, (_, b) => {
  const digit = Number.parseInt(String.fromCharCode(b), 16);
  return Number.isNaN(digit) ? -1 : digit;
});
/** Body pieces shorter than this are copied together into buffers of `PIECES_BYTES`. */
const SMALL_PIECE = 512;
const PIECES_BYTES = 16 * 1024;
/** A chunk-size line, extensions included, longer than this is not an honest one. */
const MAX_CHUNK_LINE_BYTES = 1024;
/**
 * Where every connection reads its bytes (the `onread` option of net and tls): one read is handled
 * whole, and copied out, before the next one lands.
 */
const READ_BUFFER = new Uint8Array(64 * 1024);
const CRLF = Buffer.from("\r\n");
const HEAD_END = Buffer.from("\r\n\r\n");
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9][0-9]{2})(?: [\t\x20-\x7e\x80-\xff]*)?$/;
/**
 * A response header value as llhttp reads it strictly: tab, space, visible ASCII and obs-text. A
 * bare CR or LF is a line break to some parsers and not to others (a desync), other controls a
 * lie: refused, not cleaned.
 */
const RESPONSE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Optional whitespace around a header value: space and tab only (String#trim takes more). */
const OWS = /^[\t ]+|[\t ]+$/g;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A request header value: visible ASCII, space and tab; no CR, LF or NUL to split the head with. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/** A chunk-size line: hex size, then extensions as RFC 9112 §7.1.1 writes them (no whitespace). */
const CHUNK_LINE =
  /^[0-9A-Fa-f]{1,8}(?:;[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:=(?:[!#$%&'*+.^_`|~0-9A-Za-z-]+|"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t\x20-\x7e\x80-\xff])*"))?)*$/;
const CONTENT_LENGTH = /^[0-9]{1,15}$/;
const CLOSE_TOKEN = /(?:^|[\s,])close(?:$|[\s,])/i;
/** Node keeps the first of these when they repeat; it joins the others. */
const SINGLE_VALUED = new Set([
  "age",
  "authorization",
  "content-type",
  "etag",
  "expires",
  "from",
  "host",
  "if-modified-since",
  "if-unmodified-since",
  "last-modified",
  "location",
  "max-forwards",
  "proxy-authorization",
  "referer",
  "retry-after",
  "server",
  "user-agent",
]);

/** The `host` header of an origin: the port only when it is not the scheme's default. */
export function hostHeader(origin: Origin): string {
  const host = origin.hostname.includes(":") ? `[${origin.hostname}]` : origin.hostname;
  return origin.port === (origin.https ? 443 : 80) ? host : `${host}:${origin.port}`;
}

const field = (name: string, value: string): string => {
  if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) throw new TypeError(`invalid header ${name}`);
  return `${name}: ${value}\r\n`;
};

/** The request's bytes: request line, headers, body. Refuses anything that would split the head. */
export function renderRequest(request: OutboundRequest, originHost: string): string {
  if (!TOKEN.test(request.method) || !/^\/[\x21-\x7e]*$/.test(request.path))
    throw new TypeError("invalid request line");
  let head = `${request.method} ${request.path} HTTP/1.1\r\n${field("host", request.headers.host ?? originHost)}`;
  for (const name in request.headers) {
    if (name !== "host" && name !== "content-length") head += field(name, request.headers[name] as string);
  }
  if (request.body === undefined) return `${head}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(request.body)}\r\n\r\n${request.body}`;
}

/** A header or trailer line's lower-case name and value; anything else in its place is refused. */
function fieldLine(line: string): [name: string, value: string] {
  const colon = line.indexOf(":");
  const name = line.slice(0, Math.max(colon, 0)).toLowerCase();
  if (!TOKEN.test(name)) throw new MalformedResponse("bad header line");
  const raw = line.slice(colon + 1);
  if (!RESPONSE_VALUE.test(raw)) throw new MalformedResponse("bad header value");
  return [name, raw.replace(OWS, "")];
}

/** A whole answer, and whether its connection may carry another exchange. */
export interface ReadResponse {
  response: OutboundResponse;
  reusable: boolean;
}

type Framing =
  | { kind: "none" }
  | { kind: "length"; remaining: number }
  | { kind: "chunked"; state: "size" | "data" | "data-end" | "trailers"; remaining: number }
  | { kind: "close" };

/**
 * Reads one answer from the bytes of its connection, as they come: `feed` returns it once it is
 * whole (or cut at `maxBytes`), `end` when the connection ends. Both throw MalformedResponse
 * (or ResponseTooLarge) for an answer that cannot be trusted; its connection must then close.
 */
export class ResponseReader {
  #status = 0;
  #headers: Record<string, string> = {};
  /** Null until the final head has been read. */
  #framing: Framing | null = null;
  #keepAlive = false;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  /** Small pieces are copied here, `#pieceFrom` on not yet in `#chunks` (see `#keep`). */
  #pieces: Buffer | null = null;
  #piecesUsed = 0;
  #pieceFrom = 0;
  /** Unread bytes of a head or chunk line that arrived in pieces. */
  #carry: Buffer | null = null;
  /** Some byte of the answer has arrived. */
  started = false;

  constructor(
    readonly method: string,
    readonly maxBytes: number,
    readonly overflow: "cut" | "fail",
  ) {}

  feed(chunk: Buffer): ReadResponse | null {
    this.started = true;
    let buf = chunk;
    if (this.#carry !== null) {
      buf = Buffer.concat([this.#carry, chunk]);
      this.#carry = null;
    }
    let at = 0;
    for (;;) {
      const framing = this.#framing;
      if (framing === null) {
        const end = buf.indexOf(HEAD_END, at);
        if (end < 0 || end - at > MAX_HEAD_BYTES) return this.#await(buf, at, MAX_HEAD_BYTES, "head");
        this.#head(buf.toString("latin1", at, end));
        at = end + 4;
        continue;
      }
      switch (framing.kind) {
        case "none":
          return this.#result(at < buf.length);
        case "close":
          return this.#body(buf, at, buf.length) ? this.#result(false, true) : null;
        case "length": {
          const to = at + Math.min(framing.remaining, buf.length - at);
          if (this.#body(buf, at, to)) return this.#result(false, true);
          framing.remaining -= to - at;
          at = to;
          return framing.remaining === 0 ? this.#result(at < buf.length) : null;
        }
        case "chunked":
          if (framing.state === "data") {
            const to = at + Math.min(framing.remaining, buf.length - at);
            if (this.#body(buf, at, to)) return this.#result(false, true);
            framing.remaining -= to - at;
            at = to;
            if (framing.remaining > 0) return null;
            framing.state = "data-end";
          } else if (framing.state === "data-end") {
            if (buf.length - at < 2) return this.#await(buf, at, 2, "chunk");
            if (buf[at] !== 13 || buf[at + 1] !== 10) throw new MalformedResponse("chunk not ended by CRLF");
            at += 2;
            framing.state = "size";
          } else if (framing.state === "size") {
            // Most size lines are hex digits and CRLF: read on the bytes, no string made.
            let size = 0;
            let i = at;
            for (; i < buf.length && i - at <= 8; i++) {
              const digit = HEX_VALUE[buf[i] as number] as number;
              if (digit < 0) break;
              size = size * 16 + digit;
            }
            if (i > at && i - at <= 8 && buf[i] === 13 && buf[i + 1] === 10) {
              framing.remaining = size;
              framing.state = size === 0 ? "trailers" : "data";
              at = i + 2;
              continue;
            }
            const eol = buf.indexOf(CRLF, at);
            if (eol < 0 || eol - at > MAX_CHUNK_LINE_BYTES)
              return this.#await(buf, at, MAX_CHUNK_LINE_BYTES, "chunk size line");
            const line = buf.toString("latin1", at, eol);
            if (!CHUNK_LINE.test(line)) throw new MalformedResponse("bad chunk size line");
            framing.remaining = Number.parseInt(line, 16);
            framing.state = framing.remaining === 0 ? "trailers" : "data";
            at = eol + 2;
          } else {
            // Trailer fields, if any, up to an empty line; none of them is kept.
            if (buf.length - at >= 2 && buf[at] === 13 && buf[at + 1] === 10)
              return this.#result(at + 2 < buf.length);
            const end = buf.indexOf(HEAD_END, at);
            if (end < 0 || end - at > MAX_HEAD_BYTES) return this.#await(buf, at, MAX_HEAD_BYTES, "trailers");
            for (const line of buf.toString("latin1", at, end).split("\r\n")) fieldLine(line);
            return this.#result(end + 4 < buf.length);
          }
      }
    }
  }

  /** The connection ended: a body that runs to the end is whole now; any other answer came short. */
  end(): ReadResponse {
    if (this.#framing?.kind === "close") return this.#result(false);
    throw new MalformedResponse("connection ended before the answer was whole");
  }

  /** Keeps the unread bytes for the next chunk, up to `limit` of them. */
  #await(buf: Buffer, at: number, limit: number, what: string): null {
    if (buf.length - at > limit) throw new MalformedResponse(`${what} too large`);
    if (at < buf.length) this.#carry = at === 0 ? buf : buf.subarray(at);
    return null;
  }

  /** Reads a head: the final one sets the framing; an informational (1xx) one is skipped. */
  #head(text: string): void {
    const lines = text.split("\r\n");
    const status = STATUS_LINE.exec(lines[0] as string);
    if (!status) throw new MalformedResponse("bad status line");
    const code = Number(status[2]);
    if (code === 101) throw new MalformedResponse("unexpected protocol switch");
    const headers: Record<string, string> = {};
    let length: string | undefined;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const [name, value] = fieldLine(line);
      // To llhttp a tab after a framing value is part of it (`chunked\t` is not chunked): refused.
      if ((name === "content-length" || name === "transfer-encoding") && line.includes("\t"))
        throw new MalformedResponse("tab in a framing header");
      if (name === "content-length") {
        // Even a repeated equal one: llhttp refuses it, and a length is given once or not at all.
        if (length !== undefined) throw new MalformedResponse("repeated content-length");
        length = value;
      }
      const previous = headers[name];
      if (previous === undefined) headers[name] = value;
      else if (!SINGLE_VALUED.has(name) && name !== "content-length") headers[name] = `${previous}, ${value}`;
    }
    if (code < 200) return;
    this.#status = code;
    this.#headers = headers;
    this.#keepAlive = status[1] === "1" && !CLOSE_TOKEN.test(headers.connection ?? "");
    const coding = headers["transfer-encoding"];
    if (this.method === "HEAD" || code === 204 || code === 304) {
      this.#framing = { kind: "none" };
    } else if (coding !== undefined) {
      // Only chunks: nothing asks for a compressed answer. With a length as well, the answer is
      // ambiguous (a classic desync): refused.
      if (coding.toLowerCase() !== "chunked" || length !== undefined)
        throw new MalformedResponse("unsupported transfer-encoding");
      this.#framing = { kind: "chunked", state: "size", remaining: 0 };
    } else if (length !== undefined) {
      if (!CONTENT_LENGTH.test(length)) throw new MalformedResponse("bad content-length");
      const remaining = Number(length);
      this.#framing = remaining === 0 ? { kind: "none" } : { kind: "length", remaining };
    } else {
      this.#keepAlive = false;
      this.#framing = { kind: "close" };
    }
  }

  /** Keeps body bytes; true when `maxBytes` was reached and the body is cut there. */
  #body(buf: Buffer, from: number, to: number): boolean {
    if (to <= from) return false;
    const room = this.maxBytes - this.#size;
    if (to - from <= room) {
      this.#keep(buf, from, to);
      return false;
    }
    if (this.overflow === "fail") throw new ResponseTooLarge(`response body over ${this.maxBytes} bytes`);
    if (room > 0) this.#keep(buf, from, from + room);
    return true;
  }

  /**
   * Keeps a piece of the body. A hostile server may send a body as one-byte chunks: a view per
   * piece would cost a hundred bytes of heap per body byte, so small pieces are copied together.
   */
  #keep(buf: Buffer, from: number, to: number): void {
    const length = to - from;
    this.#size += length;
    if (length >= SMALL_PIECE) {
      this.#flushPieces();
      this.#chunks.push(from === 0 && to === buf.length ? buf : buf.subarray(from, to));
      return;
    }
    if (this.#pieces === null || this.#piecesUsed + length > this.#pieces.length) {
      this.#flushPieces();
      this.#pieces = Buffer.allocUnsafe(PIECES_BYTES);
      this.#piecesUsed = 0;
      this.#pieceFrom = 0;
    }
    this.#piecesUsed += buf.copy(this.#pieces, this.#piecesUsed, from, to);
  }

  #flushPieces(): void {
    if (this.#pieces === null || this.#piecesUsed === this.#pieceFrom) return;
    this.#chunks.push(this.#pieces.subarray(this.#pieceFrom, this.#piecesUsed));
    this.#pieceFrom = this.#piecesUsed;
  }

  /** The answer; bytes after it (`trailing`) or a cut body leave the connection unusable. */
  #result(trailing: boolean, cut = false): ReadResponse {
    this.#flushPieces();
    const body =
      this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks, this.#size);
    return {
      response: { status: this.#status, headers: this.#headers, body, cut },
      reusable: this.#keepAlive && !trailing && !cut,
    };
  }
}

/** One exchange in flight on a connection. */
interface InFlight {
  reader: ResponseReader;
  settle(error: unknown, result?: ReadResponse): void;
}

/** A pooled socket with the listeners it keeps for life, and the exchange it serves, if any. */
class Connection {
  current: InFlight | null = null;
  /** It has served an exchange before: a failure before any answer means a stale connection. */
  reused = false;

  constructor(
    readonly socket: Socket,
    readonly pool: ConnectionPool,
  ) {
    socket.on("end", () => this.#end());
    socket.on("error", (e) => this.fail(e, true));
    socket.on("close", () => this.fail(new Error("connection closed"), true));
    // The agent's idle `timeout`: an idle connection closes; a busy one is bounded by its call.
    socket.on("timeout", () => {
      if (this.current === null) this.close();
    });
  }

  /** Bytes read into the shared read buffer (`onread`), copied out: the reader may keep them. */
  received(bytes: number, into: Uint8Array): boolean {
    const chunk = Buffer.allocUnsafe(bytes);
    chunk.set(into.subarray(0, bytes));
    this.#data(chunk);
    return true;
  }

  #data(chunk: Buffer): void {
    const current = this.current;
    if (current === null) {
      this.close(); // bytes nobody asked for
      return;
    }
    let result: ReadResponse | null;
    try {
      result = current.reader.feed(chunk);
    } catch (e) {
      this.fail(e);
      return;
    }
    if (result !== null) this.#done(result);
  }

  #end(): void {
    const current = this.current;
    if (current === null) {
      this.close();
      return;
    }
    let result: ReadResponse;
    try {
      result = current.reader.end();
    } catch (e) {
      this.fail(e, true);
      return;
    }
    this.#done(result);
  }

  #done(result: ReadResponse): void {
    const current = this.current as InFlight;
    this.current = null;
    this.reused = true;
    if (result.reusable && this.pool.keepAlive && !this.socket.destroyed) this.pool.release(this);
    else this.close();
    current.settle(null, result);
  }

  /**
   * Ends the exchange in flight, if any, with `error`, and closes the connection. A reused
   * connection the peer closed (`byPeer`) before any byte of the answer is a stale one.
   */
  fail(error: unknown, byPeer = false): void {
    const current = this.current;
    this.current = null;
    this.close();
    if (current === null) return;
    const stale = byPeer && this.reused && !current.reader.started;
    current.settle(stale ? new StaleConnectionError(error) : error);
  }

  close(): void {
    this.pool.forget(this);
    this.socket.destroy();
  }
}

/** Kept-alive connections to one origin, opened by an agent; the newest idle one is used first. */
export class ConnectionPool {
  readonly #idle: Connection[] = [];
  readonly #host: string;
  /** The agent's choice: without keep-alive, a connection serves one exchange. */
  readonly keepAlive: boolean;

  constructor(
    readonly agent: http.Agent,
    readonly origin: Origin,
  ) {
    this.#host = hostHeader(origin);
    this.keepAlive = (agent as { keepAlive?: boolean }).keepAlive === true;
  }

  /** Sends one request and reads its answer. */
  request(request: OutboundRequest, options: ExchangeOptions): Promise<OutboundResponse> {
    return new Promise<OutboundResponse>((resolve, reject) => {
      const signal = options.signal;
      if (signal?.aborted) return reject(signal.reason);
      let bytes: string;
      try {
        bytes = renderRequest(request, this.#host);
      } catch (e) {
        return reject(e);
      }
      const idle = this.#idle.pop();
      const connection = idle ?? this.#open(options.connectTimeoutMs);
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => connection.fail(signal?.reason);
      connection.current = {
        reader: new ResponseReader(request.method, options.maxBytes, options.overflow),
        settle(error, result) {
          if (timer !== undefined) clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          if (result) resolve(result.response);
          else reject(error);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (options.timeoutMs !== undefined)
        timer = setTimeout(() => connection.fail(timeoutError("no answer in time")), options.timeoutMs);
      if (idle) idle.socket.ref();
      connection.socket.write(bytes);
    });
  }

  #open(connectTimeoutMs: number | undefined): Connection {
    const { hostname, port } = this.origin;
    const options = (this.agent as unknown as { options: Record<string, unknown> }).options;
    // The server name as the agent gives it: its own, else the host unless that is an address.
    const servername = (options.servername as string | undefined) ?? (isIP(hostname) ? "" : hostname);
    const open = this.agent as unknown as { createConnection(options: object): Socket };
    let connection: Connection | undefined;
    const socket = open.createConnection({
      ...options,
      host: hostname,
      port,
      ...(this.origin.https && servername !== "" ? { servername } : {}),
      // Read straight into one buffer, past the socket's stream machinery (no 'data' events).
      onread: {
        buffer: READ_BUFFER,
        callback: (bytes: number, into: Uint8Array) => connection?.received(bytes, into) ?? false,
      },
    });
    connection = new Connection(socket, this);
    if (connectTimeoutMs !== undefined) {
      const timer = setTimeout(
        () => connection.fail(timeoutError("connection not established in time")),
        connectTimeoutMs,
      );
      socket.once(this.origin.https ? "secureConnect" : "connect", () => clearTimeout(timer));
      socket.once("close", () => clearTimeout(timer));
    }
    return connection;
  }

  release(connection: Connection): void {
    connection.socket.unref();
    this.#idle.push(connection);
  }

  forget(connection: Connection): void {
    const i = this.#idle.indexOf(connection);
    if (i >= 0) this.#idle.splice(i, 1);
  }

  /** Closes the idle connections (one in use closes when its exchange ends). */
  close(): void {
    for (const connection of this.#idle.splice(0)) connection.socket.destroy();
  }
}

const pools = new WeakMap<http.Agent, Map<string, ConnectionPool>>();

/** The pool of an agent's connections to an origin: one per pair, as long as the agent lives. */
export function poolFor(agent: http.Agent, origin: Origin): ConnectionPool {
  let byOrigin = pools.get(agent);
  if (!byOrigin) {
    byOrigin = new Map();
    pools.set(agent, byOrigin);
  }
  const key = `${origin.https ? "https" : "http"}://${hostHeader(origin)}`;
  let pool = byOrigin.get(key);
  if (!pool) {
    pool = new ConnectionPool(agent, origin);
    byOrigin.set(key, pool);
  }
  return pool;
}
