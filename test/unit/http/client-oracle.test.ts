/**
 * lib/http/client.ts against an independent parser: Node's own HTTP client (llhttp, strict mode)
 * reads the same bytes from a raw TCP server. A cluster's API server is hostile input, so the
 * answers are generated over the grammar of an HTTP/1.1 response head and body with its known
 * desync points (line endings, header names and values with stray bytes, repeated or conflicting
 * lengths, transfer codings, chunk lines, obsolete folding). Our reader may refuse more than
 * llhttp does, never less: an answer llhttp refuses must be refused here, and an answer both accept
 * must have the same status and body. `ORACLE_RUNS` sets the number of answers for a longer sweep.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MalformedResponse,
  type ReadResponse,
  ResponseReader,
  ResponseTooLarge,
} from "../../../lib/http/client.ts";

type Outcome = { ok: true; status: number; body: string } | { ok: false };

let server: net.Server;
let port = 0;
/** The bytes the server answers `GET /<n>` with, then it closes. */
const answers = new Map<string, Buffer>();
let asked = 0;

beforeAll(async () => {
  server = net.createServer((socket) => {
    socket.on("error", () => {});
    let request = "";
    socket.on("data", (chunk: Buffer) => {
      request += chunk.toString("latin1");
      if (!request.includes("\r\n\r\n")) return;
      const path = /^GET \/([0-9]+) /.exec(request)?.[1] ?? "";
      socket.end(answers.get(path) ?? Buffer.alloc(0));
      answers.delete(path);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
});

/** What Node's client makes of `wire`. */
function nodeReads(wire: Buffer): Promise<Outcome> {
  const path = String(++asked);
  answers.set(path, wire);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (o: Outcome) => {
      if (!settled) {
        settled = true;
        resolve(o);
      }
    };
    const req = http.get({
      host: "127.0.0.1",
      port,
      path: `/${path}`,
      agent: false,
      insecureHTTPParser: false,
    });
    req.on("error", () => settle({ ok: false }));
    req.on("response", (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("aborted", () => settle({ ok: false }));
      res.on("error", () => settle({ ok: false }));
      res.on("end", () => {
        // A body cut short by the connection's end: Node marks it incomplete.
        if (!res.complete) settle({ ok: false });
        else settle({ ok: true, status: res.statusCode ?? 0, body: Buffer.concat(parts).toString("latin1") });
      });
    });
  });
}

/** What our reader makes of `wire`, fed in the given pieces, the connection ending after them. */
function weRead(wire: Buffer, cuts: number[]): Outcome & { consumed: number } {
  const reader = new ResponseReader("GET", 1 << 20, "fail");
  const accepted = (got: ReadResponse, consumed: number) => ({
    ok: true as const,
    status: got.response.status,
    body: got.response.body.toString("latin1"),
    consumed,
  });
  try {
    let at = 0;
    for (const cut of [...cuts, wire.length].filter((c) => c > 0 && c <= wire.length).sort((a, b) => a - b)) {
      if (cut <= at) continue;
      const got = reader.feed(wire.subarray(at, cut));
      at = cut;
      if (got) return accepted(got, at);
    }
    return accepted(reader.end(), wire.length);
  } catch (e) {
    if (e instanceof MalformedResponse || e instanceof ResponseTooLarge) return { ok: false, consumed: 0 };
    throw e; // anything else is a bug in the reader
  }
}

/** Our outcome, and where the answer ended: fed a byte at a time, the byte that completed it. */
function weReadExactly(wire: Buffer): Outcome & { consumed: number } {
  return weRead(
    wire,
    Array.from({ length: wire.length }, (_, i) => i + 1),
  );
}

// ---- the grammar of a hostile answer ----------------------------------------------------------

/** Mostly `usual`, sometimes `hostile`: one mutation per answer is the usual desync. */
const often = <T>(usual: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 5, arbitrary: usual }, { weight: 1, arbitrary: hostile });

/** Stray bytes a hostile server puts where they do not belong. */
const stray = fc.oneof(
  { weight: 40, arbitrary: fc.constant("") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(" ", "\t", "\r", "\n", "\0", "\x0b", "\x0c", "\x7f", "\xa0", ",", ";"),
  },
);
const eol = fc.oneof(
  { weight: 40, arbitrary: fc.constant("\r\n") },
  { weight: 1, arbitrary: fc.constantFrom("\n", "\r", "\r\r\n", "\n\r") },
);
const statusLine = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom("HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found", "HTTP/1.0 200 OK") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "HTTP/1.1 200",
      "HTTP/1.1 200 ",
      "HTTP/1.1  200 OK",
      "HTTP/1.1 200\tOK",
      "HTTP/1.1 2000 OK",
      "HTTP/1.1 099 X",
      "HTTP/1.1 20 OK",
      "HTTP/1.2 200 OK",
      "HTTP/2.0 200 OK",
      " HTTP/1.1 200 OK",
      "HTTP/1.1 200 O\x00K",
      "HTTP/1.1 200 O\rK",
    ),
  },
);
const lengthName = often(
  fc.constantFrom("Content-Length", "content-length", "CONTENT-LENGTH"),
  fc.constant("Content_Length"),
);
const codingName = often(
  fc.constantFrom("Transfer-Encoding", "transfer-encoding"),
  fc.constant("Transfer_Encoding"),
);
const lengthValue = (n: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(String(n)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        `0${n}`,
        `+${n}`,
        `-${n}`,
        `${n},${n}`,
        `${n}, ${n}`,
        `${n} ${n}`,
        `0x${n.toString(16)}`,
        `${n}.0`,
        "",
        String(n + 1),
        String(Math.max(0, n - 1)),
        "99999999999999999999",
      ),
    },
  );
const codingValue = fc.constantFrom(
  "chunked",
  "chunked",
  "Chunked",
  "CHUNKED",
  "chunked, chunked",
  "gzip, chunked",
  "chunked, gzip",
  "identity",
  "chunked;q=1",
  "xchunked",
  "chunkedx",
  "chunk",
);
const plainHeader = fc.constantFrom("X-A", "Server", "Content-Type", "Connection", "x-b");
const plainValue = fc.constantFrom("v", "keep-alive", "close", "text/plain", "a b", "");

/** One header line, with stray bytes around its name, colon and value. */
const headerLine = (name: fc.Arbitrary<string>, value: fc.Arbitrary<string>) =>
  fc
    .tuple(
      stray,
      name,
      stray,
      often(fc.constant(":"), fc.constantFrom("::", "=", "")),
      stray,
      value,
      stray,
      often(fc.constant(false), fc.constant(true)),
    )
    .map(([a, n, b, colon, c, v, d, folded]) => {
      const line = `${a}${n}${b}${colon}${c}${v}${d}`;
      // Obsolete line folding: the value continues on a line starting with whitespace.
      return folded ? `${n}: x\r\n ${line}` : line;
    });

/** A chunked body's bytes: size lines with stray bytes, extensions, data, trailers. */
const chunkedBody = (body: string) =>
  fc
    .record({
      sizes: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }),
      sizeForm: often(fc.constantFrom("x", "X", "00"), fc.constantFrom("0x", " ", "-", "+")),
      extension: often(
        fc.constantFrom("", ";a=b", ';a="q\\"r"', ";a;b=c"),
        fc.constantFrom(';a="q;\r\n"', "; a", ";\n", ";a=\x00", " ;a", ";a=", ";=b", ';a="q'),
      ),
      afterData: often(fc.constant("\r\n"), fc.constantFrom("\n", "", "\r", "xx", "\r\n\r\n")),
      lastChunk: often(
        fc.constantFrom("0\r\n\r\n", "0\r\nt: v\r\n\r\n", "00\r\n\r\n", "0;x=y\r\n\r\n"),
        fc.constantFrom("0\r\n", "0\n\n", "", "0\r\nt v\r\n\r\n", "0\r\nt: \x01\r\n\r\n"),
      ),
      sizeEol: eol,
    })
    .map((c) => {
      let out = "";
      for (let at = 0, i = 0; at < body.length; i++) {
        const size = Math.min(c.sizes[i % c.sizes.length] as number, body.length - at);
        const hex = size.toString(16);
        const written =
          c.sizeForm === "X"
            ? hex.toUpperCase()
            : c.sizeForm === "x"
              ? hex
              : c.sizeForm === " "
                ? `${hex} `
                : `${c.sizeForm}${hex}`;
        out += `${written}${c.extension}${c.sizeEol}${body.slice(at, at + size)}${c.afterData}`;
        at += size;
      }
      return out + c.lastChunk;
    });

const answer = fc
  .record({
    status: statusLine,
    body: fc.stringMatching(/^[a-z0-9 \r\n]{0,60}$/),
    framing: often(
      fc.constantFrom("length", "chunked", "close"),
      fc.constantFrom("both", "two lengths", "two codings"),
    ),
    extras: fc.array(headerLine(plainHeader, plainValue), { maxLength: 3 }),
    headEol: eol,
    endEol: eol,
    seed: fc.nat(),
    cuts: fc.array(fc.nat({ max: 400 }), { maxLength: 6 }),
  })
  .chain((a) =>
    fc
      .record({
        length: headerLine(lengthName, lengthValue(a.body.length)),
        length2: headerLine(lengthName, lengthValue(a.body.length)),
        coding: headerLine(codingName, codingValue),
        coding2: headerLine(codingName, codingValue),
        chunked: chunkedBody(a.body),
      })
      .map((h) => {
        const framingLines =
          a.framing === "length"
            ? [h.length]
            : a.framing === "chunked"
              ? [h.coding]
              : a.framing === "both"
                ? [h.coding, h.length]
                : a.framing === "two lengths"
                  ? [h.length, h.length2]
                  : a.framing === "two codings"
                    ? [h.coding, h.coding2]
                    : [];
        const lines = [...a.extras, ...framingLines];
        // The framing headers are placed among the others, not always last.
        const at = a.seed % (lines.length + 1);
        const ordered = [...lines.slice(at), ...lines.slice(0, at)];
        const isChunked = a.framing === "chunked" || a.framing === "both" || a.framing === "two codings";
        const payload = isChunked ? h.chunked : a.body;
        const head = [a.status, ...ordered].join(a.headEol);
        return { wire: Buffer.from(`${head}${a.headEol}${a.endEol}${payload}`, "latin1"), cuts: a.cuts };
      }),
  );

describe("the response reader against Node's HTTP parser", () => {
  it("refuses every hostile answer llhttp refuses, and reads the others as it does", async () => {
    const tally = { bothAccept: 0, bothRefuse: 0, onlyWeRefuse: 0 };
    await fc.assert(
      fc.asyncProperty(answer, async ({ wire, cuts }) => {
        const ours = weReadExactly(wire);
        // However the bytes are cut, the same outcome.
        const { consumed: _, ...outcome } = ours;
        const { consumed: __, ...cutOutcome } = weRead(wire, cuts);
        expect(cutOutcome).toEqual(outcome);
        // Bytes after an answer are not an answer (our connection closes): llhttp reads them as
        // the next one and fails the call. Parsing is decided by a prefix, so llhttp is asked
        // about the bytes our answer took; its answer must be complete there, with our body.
        const theirs = await nodeReads(ours.ok ? wire.subarray(0, ours.consumed) : wire);
        const shown = JSON.stringify(wire.toString("latin1"));
        if (outcome.ok) {
          expect(theirs, `we accept what llhttp refuses: ${shown}`).toEqual(outcome);
          tally.bothAccept++;
        } else if (theirs.ok) tally.onlyWeRefuse++;
        else tally.bothRefuse++;
      }),
      { numRuns: Number(process.env.ORACLE_RUNS ?? 1500) },
    );
    // The grammar must reach both sides of the line, or the property proves nothing.
    expect(tally.bothAccept).toBeGreaterThan(300);
    expect(tally.bothRefuse).toBeGreaterThan(300);
  }, 120_000);
});
