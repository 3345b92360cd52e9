/**
 * The page body is assembled from records serialized once when measured (pipeline.md §7); it must be
 * byte for byte the serialization of the page it returns, whatever the records hold.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildLogPage } from "../../../lib/runtime-logs/index.ts";
import { BINDING, chunkOf, IDENTITY, KEYS, ModelLog, T0 } from "./harness.ts";

const lineText = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.constantFrom(
    'ERROR "quoted" \\ back\u2028slash',
    '{"level":"warn","subsystem":"gw","message":"m","status":503}',
    "{not json",
    "DEBUG quiet",
    "-----BEGIN PRIVATE KEY-----",
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
  ),
);

describe("page body", () => {
  it("equals JSON.stringify of the page envelope", () => {
    fc.assert(
      fc.property(
        fc.array(lineText, { maxLength: 40 }),
        fc.constantFrom(undefined, "error", "info"),
        fc.constantFrom(2_000, 8_000, 524_288),
        (texts, minLevel, maxBytes) => {
          const log = new ModelLog("u", 0);
          texts.forEach((t, i) => {
            log.append(BigInt(T0 + i) * 1_000_000n, t.replace(/\n/g, " "));
          });
          const read = log.read({ tailLines: 1000, limitBytes: 1_048_576, nowNs: 0n });
          let built: ReturnType<typeof buildLogPage>;
          try {
            built = buildLogPage({
              chunk: chunkOf(log, read, 1_048_576),
              cursor: null,
              expired: false,
              view: {
                binding: BINDING,
                tailLines: 1000,
                source: "gateway",
                ...(minLevel ? { minLevel: minLevel as "error" | "info" } : {}),
              },
              deploymentId: "dep-1",
              requestId: "req_1",
              now: T0 + 60_000,
              keys: { cursor: KEYS, identity: IDENTITY },
              namespaceId: "ns-a",
              maxBytes,
            });
          } catch {
            return; // a single record larger than a tiny budget is an error by design
          }
          expect(built.body).toBe(JSON.stringify({ data: built.page, meta: { requestId: "req_1" } }));
        },
      ),
      { numRuns: 300 },
    );
  });
});
