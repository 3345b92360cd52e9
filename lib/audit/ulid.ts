/**
 * ULID (26 chars, Crockford base32): 48 bits of milliseconds then 80 random bits, so IDs sort by
 * time. Time and randomness are injected; the defaults are the wall clock and the system CSPRNG.
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const MAX_TIME = 2 ** 48 - 1;

export type RandomBytes = (size: number) => Uint8Array;

export function ulid(timeMs: number, random: RandomBytes = randomBytes): string {
  if (!Number.isInteger(timeMs) || timeMs < 0 || timeMs > MAX_TIME)
    throw new RangeError("ULID time out of range");
  let time = "";
  let t = timeMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = random(10);
  if (bytes.length < 10) throw new RangeError("ULID needs 10 random bytes");
  // 80 bits → 16 groups of 5, most significant first.
  let bits = 0n;
  for (let i = 0; i < 10; i++) bits = (bits << 8n) | BigInt(bytes[i] as number);
  let rand = "";
  for (let i = 0; i < 16; i++) {
    rand = ALPHABET[Number(bits & 31n)] + rand;
    bits >>= 5n;
  }
  return time + rand;
}

export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The millisecond time a ULID carries. */
export function ulidTime(id: string): number {
  let t = 0;
  for (const c of id.slice(0, 10)) t = t * 32 + ALPHABET.indexOf(c);
  return t;
}
