/**
 * Loads the cursor-signing and identity keys (config `CURSOR_KEY_*`, `IDENTITY_KEY_*`): JSON
 * `{"keyId", "secret": base64 ≥ 32 bytes, "previous"?: {keyId, secret}}` from Secrets Manager in AWS
 * or from a file on the local stack. Loaded once per container and refreshed after a while, so a
 * rotation reaches warm containers without a redeploy.
 */
import { readFile } from "node:fs/promises";
import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { z } from "zod";
import type { KeySource } from "./config.ts";
import type { CursorKeys, IdentityKey, SecretKey } from "./runtime-logs/types.ts";

const MIN_SECRET_BYTES = 32;
const REFRESH_MS = 5 * 60_000;

const secretKeySchema = z.object({
  keyId: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
  secret: z
    .string()
    .regex(/^[A-Za-z0-9+/]+={0,2}$/)
    .refine((s) => Buffer.from(s, "base64").length >= MIN_SECRET_BYTES),
});
const keyDocumentSchema = secretKeySchema.extend({ previous: secretKeySchema.optional() });

export interface ServiceKeys {
  cursor: CursorKeys;
  identity: IdentityKey;
}

export class KeyLoadError extends Error {
  override name = "KeyLoadError";
}

const toKey = (k: z.infer<typeof secretKeySchema>): SecretKey => ({
  id: k.keyId,
  secret: Buffer.from(k.secret, "base64"),
});

async function readSource(source: KeySource, secrets: () => SecretsManagerClient): Promise<string> {
  if (source.kind === "file") return readFile(source.path, "utf8");
  const out = await secrets().send(new GetSecretValueCommand({ SecretId: source.secretId }));
  if (typeof out.SecretString !== "string") throw new KeyLoadError("secret has no string value");
  return out.SecretString;
}

async function loadDocument(name: string, source: KeySource, secrets: () => SecretsManagerClient) {
  let raw: string;
  try {
    raw = await readSource(source, secrets);
  } catch (error) {
    throw new KeyLoadError(`the ${name} key could not be read`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new KeyLoadError(`the ${name} key is not valid JSON`);
  }
  const parsed = keyDocumentSchema.safeParse(json);
  // Never echo the document: it is the secret.
  if (!parsed.success) throw new KeyLoadError(`the ${name} key has an invalid shape`);
  return parsed.data;
}

export function createKeyProvider(options: {
  cursor: KeySource;
  identity: KeySource;
  secrets: () => SecretsManagerClient;
  now?: () => number;
}): () => Promise<ServiceKeys> {
  const now = options.now ?? Date.now;
  let cached: { keys: Promise<ServiceKeys>; loadedAt: number } | undefined;
  const load = async (): Promise<ServiceKeys> => {
    const [cursor, identity] = await Promise.all([
      loadDocument("cursor", options.cursor, options.secrets),
      loadDocument("identity", options.identity, options.secrets),
    ]);
    return {
      cursor: { current: toKey(cursor), ...(cursor.previous ? { previous: toKey(cursor.previous) } : {}) },
      identity: toKey(identity),
    };
  };
  return () => {
    if (!cached || now() - cached.loadedAt > REFRESH_MS) {
      const keys = load();
      cached = { keys, loadedAt: now() };
      keys.catch(() => {
        if (cached?.keys === keys) cached = undefined;
      });
    }
    return cached.keys;
  };
}
