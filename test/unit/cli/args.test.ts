import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isLoopbackHost,
  parseEndpoint,
  parseId,
  parsePod,
  parseSince,
  parseSinceTime,
  parseTail,
} from "../../../cli/args.ts";
import { UsageError } from "../../../cli/errors.ts";

const NOW = Date.parse("2026-11-29T12:00:00Z");

describe("parseSince (Go-style durations)", () => {
  it.each([
    ["30s", 30],
    ["10m", 600],
    ["2h", 7200],
    ["1h30m", 5400],
    ["1h30m15s", 5415],
    ["1.5h", 5400],
    ["90s", 90],
    ["1s", 1],
    ["24h", 86_400],
    ["1500ms", 2],
    ["1ms", 1],
    ["23h59m59.5s", 86_400],
  ])("%s → %i seconds", (text, seconds) => {
    expect(parseSince(text)).toBe(seconds);
  });

  it.each(["", "30", "0s", "-5m", "24h1s", "25h", "1d", "10 m", "m", "1h 30m", "1e3s", "NaNs", "10M"])(
    "refuses %j",
    (text) => {
      expect(() => parseSince(text)).toThrow(UsageError);
    },
  );

  it("adds up hours, minutes and seconds, within 1 s – 24 h", () => {
    fc.assert(
      fc.property(fc.nat(30), fc.nat(200), fc.nat(5000), (h, m, s) => {
        const total = h * 3600 + m * 60 + s;
        const text = `${h}h${m}m${s}s`;
        if (total >= 1 && total <= 86_400) expect(parseSince(text)).toBe(total);
        else expect(() => parseSince(text)).toThrow(UsageError);
      }),
    );
  });
});

describe("parseSinceTime", () => {
  it("keeps UTC times with their fraction digits", () => {
    expect(parseSinceTime("2026-11-29T11:00:00Z", NOW)).toBe("2026-11-29T11:00:00Z");
    expect(parseSinceTime("2026-11-29T11:00:00.123456789Z", NOW)).toBe("2026-11-29T11:00:00.123456789Z");
  });

  it("converts offsets to UTC", () => {
    expect(parseSinceTime("2026-11-29T12:30:00.5+01:00", NOW)).toBe("2026-11-29T11:30:00.5Z");
    expect(parseSinceTime("2026-11-28T23:00:00-05:00", NOW)).toBe("2026-11-29T04:00:00Z");
  });

  it.each([
    "2026-11-29",
    "2026-02-30T00:00:00Z",
    "2026-11-29T24:00:00Z",
    "2026-11-29T11:00:00",
    "2026-11-29T11:00:00.1234567890Z",
    "2026-11-29T13:00:00Z",
    "yesterday",
  ])("refuses %j", (text) => {
    expect(() => parseSinceTime(text, NOW)).toThrow(UsageError);
  });
});

describe("parseTail", () => {
  it("accepts exactly 1-1000", () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 5000 }), (n) => {
        if (n >= 1 && n <= 1000) expect(parseTail(String(n))).toBe(n);
        else expect(() => parseTail(String(n))).toThrow(UsageError);
      }),
    );
    for (const bad of ["", "1.5", "+5", "1e2", " 5", "ten"]) expect(() => parseTail(bad)).toThrow(UsageError);
  });
});

describe("IDs, Pods, endpoints", () => {
  it("follows the API's ID pattern", () => {
    expect(parseId("AGENT", "support")).toBe("support");
    expect(parseId("AGENT", "a_b-1")).toBe("a_b-1");
    for (const bad of ["", "Support", "-a", "a-", "a/b", "a".repeat(65), "../x", "a b"])
      expect(() => parseId("AGENT", bad)).toThrow(UsageError);
  });

  it("takes DNS-subdomain Pod names", () => {
    expect(parsePod("gw-0.x")).toBe("gw-0.x");
    for (const bad of ["", "GW", "gw_0", "-gw", "a".repeat(254)])
      expect(() => parsePod(bad)).toThrow(UsageError);
  });

  it("takes http(s) endpoints without credentials, query or fragment", () => {
    expect(parseEndpoint("https://api.example.com/prod/").href).toBe("https://api.example.com/prod");
    for (const bad of ["api.example.com", "ftp://x", "https://u:p@x", "https://x/?a=1", "https://x/#f"])
      expect(() => parseEndpoint(bad)).toThrow(UsageError);
  });

  it("never echoes credentials from an endpoint", () => {
    expect(() => parseEndpoint("https://user:s3cret@api.example.com")).toThrow(/^(?!.*s3cret).*credentials/);
  });

  it("knows loopback hosts", () => {
    expect(isLoopbackHost("127.0.0.1")).toBe(true);
    expect(isLoopbackHost("localhost")).toBe(true);
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost("10.0.0.1")).toBe(false);
    expect(isLoopbackHost("127.0.0.1.evil.com")).toBe(false);
  });
});
