import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { describe, expect, it } from "vitest";
import { createKeyProvider, KeyLoadError } from "../../../lib/keys.ts";
import { outage, settle } from "../../support/outage.ts";

const dir = mkdtempSync(join(tmpdir(), "keys-"));
const keyDoc = (id: string, extra: object = {}) => ({
  keyId: id,
  secret: randomBytes(32).toString("base64"),
  ...extra,
});
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return { kind: "file" as const, path };
};
/** Secrets Manager faked at the SDK edge (its `send`): `answer` gives each secret's string, or throws. */
function secretsManager(answer: (secretId: string) => string) {
  const sm = {
    calls: 0,
    client: {
      send: async (command: { input: { SecretId: string } }) => {
        sm.calls++;
        return { SecretString: answer(command.input.SecretId) };
      },
    } as unknown as SecretsManagerClient,
  };
  return sm;
}

/** A provider of both keys from the secrets `cursor` and `identity` of `client`. */
const fromSecrets = (client: SecretsManagerClient, options: { now: () => number; random?: () => number }) =>
  createKeyProvider({
    cursor: { kind: "secret", secretId: "cursor" },
    identity: { kind: "secret", secretId: "identity" },
    secrets: () => client,
    ...options,
  });

const noSecrets = () => {
  throw new Error("no Secrets Manager in this test");
};

describe("key provider", () => {
  it("loads both keys from files, each with its previous key for rotation", async () => {
    const cursor = keyDoc("c2", { previous: keyDoc("c1") });
    const previousIdentity = keyDoc("i1");
    const identity = keyDoc("i2", { previous: previousIdentity });
    const load = createKeyProvider({
      cursor: file("c.json", cursor),
      identity: file("i.json", identity),
      secrets: noSecrets,
    });
    const keys = await load();
    expect(keys.cursor.current.id).toBe("c2");
    expect(keys.cursor.current.secret.equals(Buffer.from(cursor.secret, "base64"))).toBe(true);
    expect(keys.cursor.previous?.id).toBe("c1");
    expect(keys.identity.current.id).toBe("i2");
    expect(keys.identity.current.secret.equals(Buffer.from(identity.secret, "base64"))).toBe(true);
    expect(keys.identity.previous?.id).toBe("i1");
    expect(keys.identity.previous?.secret.equals(Buffer.from(previousIdentity.secret, "base64"))).toBe(true);
  });

  it("refuses an identity key whose id (current or previous) reads like a provider token", async () => {
    for (const [n, identity] of [
      ["a", keyDoc("local-identity-key-20261201185819-77966979")],
      ["b", keyDoc("i2", { previous: keyDoc("sk-proj-rotated0123456789") })],
    ] as const) {
      const load = createKeyProvider({
        cursor: file(`cp${n}.json`, keyDoc("cursor-key-2026-0123456789abcdef0123456789abcdef")),
        identity: file(`ip${n}.json`, identity),
        secrets: noSecrets,
      });
      const error = await load().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KeyLoadError);
      expect((error as Error).message).toBe(
        "the identity key's keyId reads like a provider token; choose another keyId",
      );
    }
  });

  it("a key without previous has none; the same object comes back while nothing changed", async () => {
    const load = createKeyProvider({
      cursor: file("c0.json", keyDoc("c1")),
      identity: file("i0.json", keyDoc("i1")),
      secrets: noSecrets,
    });
    const keys = await load();
    expect(keys.identity.previous).toBeUndefined();
    expect(keys.cursor.previous).toBeUndefined();
    expect(await load()).toBe(keys);
  });

  it("reads Secrets Manager at the SDK edge and caches the keys", async () => {
    const docs: Record<string, unknown> = { cursor: keyDoc("c1"), identity: keyDoc("i1") };
    const sm = secretsManager((id) => JSON.stringify(docs[id]));
    let now = 0;
    const load = fromSecrets(sm.client, { now: () => now });
    await load();
    await load();
    expect(sm.calls).toBe(2);
    docs.identity = keyDoc("i2", { previous: docs.identity });
    now += 6 * 60_000; // past the refresh interval: rotation reaches warm containers
    await load(); // served from the last copy while the refresh runs beside it
    expect(sm.calls).toBe(4);
    await settle();
    const keys = await load();
    expect(keys.identity.current.id).toBe("i2");
    expect(keys.identity.previous?.id).toBe("i1");
  });

  it("a failed refresh keeps the keys it had and backs off: an outage costs O(log) reads, not one per request", async () => {
    let down = false;
    const docs: Record<string, unknown> = { cursor: keyDoc("c1"), identity: keyDoc("i1") };
    const sm = secretsManager((id) => {
      if (down) throw Object.assign(new Error("throttled"), { name: "ThrottlingException" });
      return JSON.stringify(docs[id]);
    });
    let now = 0;
    const load = fromSecrets(sm.client, { now: () => now, random: () => 0 });
    const good = await load();
    down = true;
    // 6 000 requests over 10 minutes, starting past the refresh interval.
    const r = await outage({
      requests: 6_000,
      spanMs: 10 * 60_000,
      startMs: 6 * 60_000,
      setNow: (ms) => {
        now = ms;
      },
      read: load,
      calls: () => sm.calls,
    });
    expect(r.failed).toBe(0);
    expect(r.values).toHaveLength(6_000);
    expect(new Set(r.values.map((k) => `${k.cursor.current.id} ${k.identity.current.id}`))).toEqual(
      new Set(["c1 i1"]),
    );
    // Two secrets, each: waits 0.5, 1, 2, … capped at 30–60 s: ~8 to reach the cap, then ≤ 20 more.
    expect(r.calls).toBeLessThanOrEqual(2 * 30);
    // And it kept retrying: a provider that gave up after one failure would stay stale forever.
    expect(r.calls).toBeGreaterThanOrEqual(2 * 8);
    expect(good.identity.current.id).toBe("i1");
  });

  it("a first load that fails fails the request with KeyLoadError, and so does the next within the backoff", async () => {
    const sm = secretsManager(() => {
      throw new Error("unreachable");
    });
    let now = 0;
    const load = fromSecrets(sm.client, { now: () => now, random: () => 0 });
    await expect(load()).rejects.toBeInstanceOf(KeyLoadError);
    now = 100;
    await expect(load()).rejects.toBeInstanceOf(KeyLoadError);
    expect(sm.calls).toBe(2); // one per secret, none for the second request
  });

  it.each([
    ["short secret", { keyId: "k", secret: randomBytes(16).toString("base64") }],
    ["bad key id", keyDoc("has space")],
    ["not JSON", "{nope"],
  ])("rejects a %s without echoing the document", async (_name, content) => {
    const cursor = file(`bad-${_name.replace(/ /g, "-")}.json`, content);
    const load = createKeyProvider({ cursor, identity: file("ok.json", keyDoc("i1")), secrets: noSecrets });
    const error = await load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyLoadError);
    const secret = typeof content === "string" ? content : content.secret;
    expect(String((error as Error).message)).not.toContain(secret);
  });
});
