import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { describe, expect, it } from "vitest";
import { createKeyProvider, KeyLoadError } from "../../../lib/keys.ts";

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
const noSecrets = () => {
  throw new Error("no Secrets Manager in this test");
};

describe("key provider", () => {
  it("loads both keys from files, with the previous cursor key for rotation", async () => {
    const cursor = keyDoc("c2", { previous: keyDoc("c1") });
    const load = createKeyProvider({
      cursor: file("c.json", cursor),
      identity: file("i.json", keyDoc("i1")),
      secrets: noSecrets,
    });
    const keys = await load();
    expect(keys.cursor.current.id).toBe("c2");
    expect(keys.cursor.current.secret.equals(Buffer.from(cursor.secret, "base64"))).toBe(true);
    expect(keys.cursor.previous?.id).toBe("c1");
    expect(keys.identity.id).toBe("i1");
  });

  it("reads Secrets Manager at the SDK edge and caches the keys", async () => {
    let calls = 0;
    const docs: Record<string, unknown> = { cursor: keyDoc("c1"), identity: keyDoc("i1") };
    const secrets = {
      send: async (command: { input: { SecretId: string } }) => {
        calls++;
        return { SecretString: JSON.stringify(docs[command.input.SecretId]) };
      },
    } as unknown as SecretsManagerClient;
    let now = 0;
    const load = createKeyProvider({
      cursor: { kind: "secret", secretId: "cursor" },
      identity: { kind: "secret", secretId: "identity" },
      secrets: () => secrets,
      now: () => now,
    });
    await load();
    await load();
    expect(calls).toBe(2);
    now += 6 * 60_000; // past the refresh interval: rotation reaches warm containers
    await load();
    expect(calls).toBe(4);
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
