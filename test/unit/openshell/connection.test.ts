/** Connection documents: shape, TLS material, and plaintext only to an allowed loopback endpoint. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isServiceError } from "../../../lib/api/errors.ts";
import {
  CONNECTION_CACHE_MS,
  createConnectionStore,
  isLoopbackHost,
  parseConnectionDocument,
} from "../../../lib/openshell/connection.ts";
import { outage } from "../../support/outage.ts";

const CERT = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const KEY = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";
const parse = (doc: unknown) => parseConnectionDocument(JSON.stringify(doc));

describe("parseConnectionDocument", () => {
  it("reads mTLS, token and plaintext loopback documents", () => {
    expect(
      parse({ endpoint: "os.example:443", caPem: CERT, clientCertPem: CERT, clientKeyPem: KEY }),
    ).toMatchObject({
      baseUrl: "https://os.example:443",
      auth: "mtls",
    });
    expect(parse({ endpoint: "https://os.example:8443", token: "abc.def" })).toMatchObject({
      baseUrl: "https://os.example:8443",
      auth: "token",
      token: "abc.def",
    });
    expect(parse({ endpoint: "http://127.0.0.1:9000", allowPlaintextLoopback: true })).toMatchObject({
      baseUrl: "http://127.0.0.1:9000",
      auth: "plaintext",
    });
    expect(parse({ endpoint: "http://[::1]:9000", allowPlaintextLoopback: true }).baseUrl).toBe(
      "http://[::1]:9000",
    );
  });

  it("refuses plaintext unless the endpoint is loopback and the document allows it", () => {
    expect(() => parse({ endpoint: "http://127.0.0.1:9000" })).toThrow(/plaintext/);
    expect(() => parse({ endpoint: "http://10.0.0.1:9000", allowPlaintextLoopback: true })).toThrow(
      /plaintext/,
    );
    expect(() =>
      parse({ endpoint: "http://localhost.evil.example:9000", allowPlaintextLoopback: true }),
    ).toThrow(/plaintext/);
    expect(() => parse({ endpoint: "http://127.0.0.1.nip.io:9000", allowPlaintextLoopback: true })).toThrow(
      /plaintext/,
    );
  });

  it("refuses unknown fields, a half client identity, a TLS endpoint with no credential, bad tokens", () => {
    expect(() => parse({ endpoint: "a:1", token: "t", extra: 1 })).toThrow();
    expect(() => parse({ endpoint: "a:1", clientCertPem: CERT })).toThrow(/together/);
    expect(() => parse({ endpoint: "a:1" })).toThrow(/certificate or token/);
    expect(() => parse({ endpoint: "a:1", token: "a b" })).toThrow();
    expect(() => parse({ endpoint: "a:1", token: "a\r\nx-injected: 1" })).toThrow();
    expect(() => parse({ endpoint: "a:99999", token: "t" })).toThrow();
    expect(() => parse({ endpoint: "ftp://a:1", token: "t" })).toThrow();
    expect(() => parseConnectionDocument("not json")).toThrow(/JSON/);
  });

  it("never echoes document contents in its errors", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 12 }), (secret) => {
        try {
          parse({ endpoint: "http://8.8.8.8:1", token: secret });
        } catch (e) {
          expect((e as Error).message).not.toContain(secret);
        }
      }),
    );
  });

  it("knows loopback hosts", () => {
    for (const h of ["127.0.0.1", "127.8.9.10", "[::1]", "localhost"]) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ["128.0.0.1", "[::2]", "localhost.example", "0.0.0.0", "10.0.0.1"])
      expect(isLoopbackHost(h)).toBe(false);
  });
});

describe("ConnectionStore", () => {
  const NAME = "runtime-logs/openshell/gw1";
  const REF = `secretsmanager:${NAME}`;
  const secrets = (answer: () => string) => {
    const calls: string[] = [];
    return {
      calls,
      sender: {
        send: async (command: { input: { SecretId: string } }) => {
          calls.push(command.input.SecretId);
          return { SecretString: answer() };
        },
      } as never,
    };
  };

  it("a failed refresh serves the last good document, with O(log) reads over the outage", async () => {
    let now = 0;
    let down = false;
    const s = secrets(() => {
      if (down) throw new Error("unreachable");
      return JSON.stringify({ endpoint: "os.example:443", token: "abc.def" });
    });
    const store = createConnectionStore({ secrets: s.sender, now: () => now, random: () => 0 });
    await store.get("gw1", REF);
    down = true;
    // 3 000 requests over 5 minutes, from the first one past the cache's lifetime.
    const r = await outage({
      requests: 3_000,
      spanMs: 3_000 * 100,
      startMs: CONNECTION_CACHE_MS + 100,
      setNow: (ms) => {
        now = ms;
      },
      read: async () => (await store.get("gw1", REF)).token,
      calls: () => s.calls.length,
    });
    expect(r.failed).toBe(0);
    expect(r.values).toHaveLength(3_000);
    expect(new Set(r.values)).toEqual(new Set(["abc.def"]));
    // Bounded above (no storm) and below: a store that never refreshed would pass the first alone.
    expect(r.calls).toBeLessThanOrEqual(20);
    expect(r.calls).toBeGreaterThanOrEqual(5);
  });

  it("a first load that fails answers RUNTIME_LOGS_UNAVAILABLE, and backs off", async () => {
    const s = secrets(() => {
      throw new Error("unreachable");
    });
    const store = createConnectionStore({ secrets: s.sender, now: () => 0, random: () => 0 });
    for (let i = 0; i < 3; i++) {
      const e = await store.get("gw1", REF).catch((error: unknown) => error);
      expect(isServiceError(e) && e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    }
    expect(s.calls).toEqual([NAME]);
  });
});
