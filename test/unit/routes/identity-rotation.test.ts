/**
 * The identity (pseudonym) key rotates like the cursor key (lib/keys.ts): after a rotation new
 * pseudonyms carry the current key's id, and those the previous key made are still recognised as
 * the service's own (whole-value protection in redaction, the shape check of restart attribution).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createKeyProvider } from "../../../lib/keys.ts";
import { isPseudonym, pseudonymize, redactText } from "../../../lib/redact/index.ts";
import { attributionDeps } from "../../../lib/restarts/identity.ts";

const dir = mkdtempSync(join(tmpdir(), "identity-rotation-"));
const keyDoc = (keyId: string, extra: object = {}) => ({
  keyId,
  secret: randomBytes(32).toString("base64"),
  ...extra,
});
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return { kind: "file" as const, path };
};

describe("identity key rotation", () => {
  it("makes pseudonyms with the current key and still recognises the previous key's", async () => {
    const before = await createKeyProvider({
      cursor: file("c1.json", keyDoc("c1")),
      identity: file("i1.json", keyDoc("id-2026-01")),
      secrets: () => {
        throw new Error("no Secrets Manager here");
      },
    })();
    const rotatedDoc = keyDoc("id-2026-02", {
      previous: { keyId: "id-2026-01", secret: before.identity.current.secret.toString("base64") },
    });
    const after = await createKeyProvider({
      cursor: file("c2.json", keyDoc("c1")),
      identity: file("i2.json", rotatedDoc),
      secrets: () => {
        throw new Error("no Secrets Manager here");
      },
    })();

    const old = pseudonymize(before.identity.current, "actor", "ns1", "user-42");
    // The previous key is the old current one: it reproduces the pseudonyms made before.
    expect(pseudonymize(after.identity.previous ?? null, "actor", "ns1", "user-42")).toBe(old);

    const fresh = attributionDeps(after.identity.current, "ns1").pseudonymize("actor", "user-42");
    expect(fresh).toMatch(/^hmac-sha256:v1:id-2026-02:[0-9a-f]{64}$/);
    expect(fresh).not.toBe(old);

    // Both are the service's own: redaction leaves them whole, the shape check accepts them.
    for (const p of [old, fresh as string]) {
      expect(isPseudonym(p)).toBe(true);
      expect(redactText(`restart-dispatch actor=${p} session=${p}`)).toBe(
        `restart-dispatch actor=${p} session=${p}`,
      );
    }
  });
});
