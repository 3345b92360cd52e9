/**
 * Provider tokens of the catalog (facts from the providers' documentation and the public scanner
 * catalogs): one test per prefix, with a body (and a lead) of exactly its minimum length masked
 * whole, and one character short of either left alone (the minimum is what makes it a token).
 */
import { describe, expect, it } from "vitest";
import { PROVIDERS, redactText } from "../../../lib/redact/index.ts";

/** A body of `n` characters of the provider's alphabet with the character kinds real tokens have. */
function body(kind: number, n: number): string {
  const alphabets: Record<number, string> = {
    4: "0123456789abcdef",
    5: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    8: "0123456789",
  };
  const alphabet = alphabets[kind] ?? "aB3xQ9kZ7mN2pR5tW8yL4";
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[(i * 7 + 3) % alphabet.length];
  return s;
}

describe("provider tokens", () => {
  it.each(PROVIDERS.map((p) => [p.prefix.trim(), p] as const))("%s", (_name, p) => {
    const lead = p.lead === undefined ? "" : body(p.lead.body, p.lead.min);
    const b = body(p.body, p.min);
    const token = p.body === 7 ? `${p.prefix}sr=${b}` : `${lead}${p.prefix}${b}`;
    const masked = `value [redacted:${p.kind ?? "token"}] end`;
    const out = redactText(`value ${token} end`);
    expect(out).not.toContain(b);
    expect(out).toBe(masked);
    if (p.body !== 7) {
      const short = `${lead}${p.prefix}${body(p.body, p.min - 1)}`;
      // One short of the minimum is not this provider's token (another rule may still mask it).
      expect(redactText(`value ${short} end`)).not.toBe(masked);
    }
    if (p.lead !== undefined)
      expect(redactText(`value ${lead.slice(1)}${p.prefix}${b} end`)).not.toBe(masked);
  });

  it("a token glued after a letter is part of a word, not a token", () => {
    expect(redactText("mask-ghp_aB3xQ9kZ7mN2")).toContain("[redacted:token]");
    expect(redactText("xghp_aB3xQ9kZ7mN2 end")).toBe("xghp_aB3xQ9kZ7mN2 end");
  });
});
