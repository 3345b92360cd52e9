/**
 * Loads the cursor-signing and identity keys (config `CURSOR_KEY_*`, `IDENTITY_KEY_*`): JSON
 * `{"keyId", "secret": base64 ≥ 32 bytes, "previous"?: {keyId, secret}}` from Secrets Manager in AWS
 * or from a file on the local stack. Loaded once per container and refreshed after a while, so a
 * rotation reaches warm containers without a redeploy; a failed refresh keeps the keys it had
 * (lib/secret-cache.ts). Both keys rotate alike: the document's `previous` stays accepted.
 */
import { readFile } from "node:fs/promises";
import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { z } from "zod";
import type { KeySource } from "./config.ts";
import { holdsProviderPrefix } from "./redact/rules/provider-tokens.ts";
import type { CursorKeys, IdentityKeys, KeyRing, SecretKey } from "./runtime-logs/types.ts";
import { SecretCache } from "./secret-cache.ts";

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
  /** Signs new cursors with `current`; verifies cursors of `previous` too. */
  cursor: CursorKeys;
  /** Pseudonyms are made with `current`; those of `previous` are still the service's own. */
  identity: IdentityKeys;
}

/**
 * The keys of a container; `refreshFailing` says whether stale keys are being served because their
 * store failed (the probe reports it, requests go on with the last good keys).
 */
export type KeyProvider = (() => Promise<ServiceKeys>) & { refreshFailing?: () => boolean };

export class KeyLoadError extends Error {
  override name = "KeyLoadError";
}

const toKey = (k: z.infer<typeof secretKeySchema>): SecretKey => ({
  id: k.keyId,
  secret: Buffer.from(k.secret, "base64"),
});

/** Both keys rotate the same way: new material is `current`, the one before stays as `previous`. */
const toRing = (doc: z.infer<typeof keyDocumentSchema>): KeyRing => ({
  current: toKey(doc),
  ...(doc.previous ? { previous: toKey(doc.previous) } : {}),
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
  // A pseudonym carries its key id in clear; an id that reads like a provider token (`key-…`,
  // `sk-…`) is a disguise redaction refuses to trust, so every pseudonym made with it would be masked.
  const ids = [parsed.data.keyId, parsed.data.previous?.keyId ?? ""];
  if (name === "identity" && ids.some(holdsProviderPrefix))
    throw new KeyLoadError("the identity key's keyId reads like a provider token; choose another keyId");
  return parsed.data;
}

export function createKeyProvider(options: {
  cursor: KeySource;
  identity: KeySource;
  secrets: () => SecretsManagerClient;
  now?: () => number;
  random?: () => number;
}): KeyProvider {
  const cache = new SecretCache<KeyRing>({
    ttlMs: REFRESH_MS,
    ...(options.now ? { now: options.now } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
  const ring = (name: "cursor" | "identity") => () =>
    cache.get(name, async () => toRing(await loadDocument(name, options[name], options.secrets)));
  const cursor = ring("cursor");
  const identity = ring("identity");
  let last: ServiceKeys | undefined;
  const keys = async () => {
    const [c, i] = await Promise.all([cursor(), identity()]);
    // The same object while neither key changed: callers may cache what they derive from it.
    if (last?.cursor !== c || last.identity !== i) last = { cursor: c, identity: i };
    return last;
  };
  return Object.assign(keys, { refreshFailing: () => cache.refreshFailing() });
}
