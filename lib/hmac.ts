/**
 * HMAC-SHA256 for the digests made on every poll (SigV4 signatures, cursor MACs, keyed line hashes):
 * RFC 2104 as two one-shot digests (`crypto.hash`, Node ≥ 20.12) over buffers kept with the key. The
 * key's pads are computed once, and a digest costs no Hmac object, which costs about three times as
 * much CPU per digest of a log line.
 */
import { createHash, createHmac, hash } from "node:crypto";

type Encoding = "hex" | "base64url" | "buffer";
type Digest<E extends Encoding> = E extends "buffer" ? Buffer : string;

export class HmacSha256 {
  /** key ⊕ ipad, followed by the message. */
  #inner: Buffer;
  /** key ⊕ opad, followed by the inner digest. */
  readonly #outer = Buffer.alloc(64 + 32);
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
    const k = key.length > 64 ? createHash("sha256").update(key).digest() : key;
    this.#inner = Buffer.alloc(64 + 256);
    for (let i = 0; i < 64; i++) {
      const byte = k[i] ?? 0;
      this.#inner[i] = byte ^ 0x36;
      this.#outer[i] = byte ^ 0x5c;
    }
  }

  /** The HMAC of `message` (UTF-8) in `encoding`. */
  digest<E extends Encoding>(message: string, encoding: E): Digest<E> {
    // Without `crypto.hash` (Node < 20.12): the Hmac object.
    if (typeof hash !== "function") {
      const mac = createHmac("sha256", this.#key).update(message, "utf8");
      return (encoding === "buffer" ? mac.digest() : mac.digest(encoding)) as Digest<E>;
    }
    const length = Buffer.byteLength(message);
    if (64 + length > this.#inner.length) {
      const grown = Buffer.alloc(64 + length);
      this.#inner.copy(grown, 0, 0, 64);
      this.#inner = grown;
    }
    this.#inner.write(message, 64, "utf8");
    // The inner digest as a one-byte string is cheaper to make than a Buffer.
    this.#outer.write(hash("sha256", this.#inner.subarray(0, 64 + length), "binary"), 64, "binary");
    return hash("sha256", this.#outer, encoding) as Digest<E>;
  }

  hex(message: string): string {
    return this.digest(message, "hex");
  }
}

const bySecret = new WeakMap<Buffer, HmacSha256>();

/** The HMAC of one secret, made once per secret (keys live as long as their container). */
export function hmacOf(secret: Buffer): HmacSha256 {
  let mac = bySecret.get(secret);
  if (mac === undefined) {
    mac = new HmacSha256(secret);
    bySecret.set(secret, mac);
  }
  return mac;
}
