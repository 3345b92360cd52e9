/** lib/hmac.ts against node:crypto's Hmac as the oracle. */
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HmacSha256, hmacOf } from "../../lib/hmac.ts";

describe("HmacSha256", () => {
  it("gives node:crypto's HMAC-SHA256 in every encoding, for keys of any length and messages longer than its buffer", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 100 }),
        fc.array(fc.string({ unit: "grapheme", maxLength: 400 }), { minLength: 1, maxLength: 4 }),
        (key, messages) => {
          const hmac = new HmacSha256(Buffer.from(key));
          // One key, several messages in turn: what one message leaves in the buffers never leaks.
          for (const message of messages) {
            const expected = createHmac("sha256", key).update(message, "utf8").digest();
            expect(hmac.hex(message)).toBe(expected.toString("hex"));
            expect(hmac.digest(message, "base64url")).toBe(expected.toString("base64url"));
            expect(hmac.digest(message, "buffer").equals(expected)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is made once per secret", () => {
    const secret = Buffer.alloc(32, 1);
    expect(hmacOf(secret)).toBe(hmacOf(secret));
    expect(hmacOf(Buffer.alloc(32, 1))).not.toBe(hmacOf(secret));
  });
});
