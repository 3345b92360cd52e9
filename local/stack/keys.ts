/**
 * The cursor-signing and identity (pseudonym) keys of the local stack, as JSON files in the format
 * the functions read: `{"keyId": "...", "secret": "<base64 of 32 random bytes>"}`. Kept when asked
 * (a persisted data directory keeps cursors and pseudonyms valid across restarts), else regenerated.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { holdsProviderPrefix } from "../../lib/redact/rules/provider-tokens.ts";
import { writeFileAtomic } from "./files.ts";

export interface KeyFiles {
  cursorKeyFile: string;
  identityKeyFile: string;
}

export interface KeyFile {
  keyId: string;
  secret: string;
}

const KEY_BYTES = 32;

export function generateKey(name: string, now: Date = new Date()): KeyFile {
  const stamp = now
    .toISOString()
    .replace(/[-:.TZ]/g, "")
    .slice(0, 14);
  return {
    keyId: `local-${name}-${stamp}-${randomBytes(4).toString("hex")}`,
    secret: randomBytes(KEY_BYTES).toString("base64"),
  };
}

function isValidKeyFile(path: string): boolean {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<KeyFile>;
    return (
      typeof parsed.keyId === "string" &&
      parsed.keyId.length > 0 &&
      !holdsProviderPrefix(parsed.keyId) &&
      typeof parsed.secret === "string" &&
      Buffer.from(parsed.secret, "base64").length >= KEY_BYTES
    );
  } catch {
    return false;
  }
}

/** Key ids name the key's use only: `local-identity-…`, never `…key-…`, which reads like a provider token. */
function ensureKey(dir: string, use: "cursor" | "identity", keep: boolean): string {
  const path = join(dir, `${use}-key.json`);
  if (!(keep && existsSync(path) && isValidKeyFile(path))) {
    writeFileAtomic(path, `${JSON.stringify(generateKey(use), null, 2)}\n`, 0o600);
  }
  chmodSync(path, 0o600);
  return path;
}

/** Writes (or keeps) both keys under `dir`, readable by the owner only. */
export function ensureKeys(dir: string, opts: { keep: boolean }): KeyFiles {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return {
    cursorKeyFile: ensureKey(dir, "cursor", opts.keep),
    identityKeyFile: ensureKey(dir, "identity", opts.keep),
  };
}

/** The key files of a stack whose keys live under `dir` (for `npm run invoke`). */
export function keyFilesIn(dir: string): KeyFiles {
  return { cursorKeyFile: join(dir, "cursor-key.json"), identityKeyFile: join(dir, "identity-key.json") };
}
