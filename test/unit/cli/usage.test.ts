/**
 * Usage errors exit 2 before any request: proved with a local server that counts what it receives.
 */
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { base, deploymentsData, fakeApiSuite, line, occ, ok, page } from "./harness.ts";

const api = fakeApiSuite();
beforeEach(() => {
  api.routes.set(base(), () => ok(deploymentsData));
  api.routes.set(`${base("d3")}/runtime/logs`, () => ok(page([line("hello")])));
});

const L = ["agent", "logs", "support"];

describe("usage errors (exit 2, nothing sent)", () => {
  it.each([
    [[...L]],
    [[...L, "--source", "bogus"]],
    [[...L, "--source", "gateway", "--since", "10m", "--since-time", "2026-11-29T11:00:00Z"]],
    [[...L, "--source", "gateway", "--previous", "--follow"]],
    [[...L, "--source", "gateway", "--tail", "0"]],
    [[...L, "--source", "gateway", "--tail", "1001"]],
    [[...L, "--source", "gateway", "--tail", "abc"]],
    [[...L, "--source", "gateway", "--since", "25h"]],
    [[...L, "--source", "gateway", "--since", "0s"]],
    [[...L, "--source", "gateway", "--since", "10"]],
    [[...L, "--source", "gateway", "--since-time", "2026-02-30T00:00:00Z"]],
    [[...L, "--source", "gateway", "--since-time", "2099-01-01T00:00:00Z"]],
    [[...L, "--source", "gateway", "--level", "verbose"]],
    [[...L, "--source", "gateway", "--pod", "Bad_Pod"]],
    [[...L, "--source", "sandbox", "--pod", "gw-0"]],
    [[...L, "--source", "sandbox", "--previous"]],
    [[...L, "--source", "gateway", "--download", "--follow"]],
    [[...L, "--source", "gateway", "--download", "--tail", "5"]],
    [[...L, "--source", "gateway", "--deployment", "D3"]],
    [[...L, "--source", "all", "--download"]],
    [[...L, "--source", "all", "--download=all.log"]],
    [[...L, "--source", "gateway", "-c", "Bad_Name"]],
    [[...L, "--source", "gateway", "--container", "-x"]],
    [[...L, "--source", "sandbox", "-c", "harness"]],
    [[...L, "--source", "gateway", "--timestamps=maybe"]],
    [[...L, "--source", "gateway", "-o", "log"]],
    [[...L, "--source", "gateway", "-o", "yaml"]],
    [[...L, "--source", "gateway", "--unknown"]],
    [["agent", "logs", "Bad Agent", "--source", "gateway"]],
    [["agent", "runtime"]],
    [["agent", "runtime", "support", "-o", "log"]],
    [["agent", "deployments", "support", "extra"]],
    [["agent", "nope", "support"]],
    [["agent"]],
    [[]],
  ])("%j", async (argv) => {
    const r = await occ(api, argv);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toBe("");
    expect(r.stdout).toBe("");
    expect(api.requests).toHaveLength(0);
  });

  it("needs an endpoint and a namespace, and a valid token", async () => {
    for (const env of [
      { OCC_ENDPOINT: undefined },
      { OCC_NAMESPACE: undefined },
      { OCC_NAMESPACE: "Acme" },
      { OCC_ENDPOINT: "not a url" },
      { OCC_TOKEN: "two words" },
      { OCC_ENDPOINT: "http://api.example.com" },
    ]) {
      const r = await occ(api, ["agent", "deployments", "support"], { env });
      expect(r.code, JSON.stringify(env)).toBe(2);
    }
    expect(api.requests).toHaveLength(0);
  });

  it("refuses any out-of-range --tail and malformed --since without sending", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 1001, max: 10_000_000 }).map(String),
          fc.integer({ min: -100, max: 0 }).map(String),
          fc.string({ maxLength: 6 }).filter((s) => !/^[0-9]+$/.test(s)),
        ),
        async (tail) => {
          const r = await occ(api, [...L, "--source", "agent", `--tail=${tail}`]);
          expect(r.code).toBe(2);
        },
      ),
      { numRuns: 40 },
    );
    expect(api.requests).toHaveLength(0);
  });

  it("prints help with examples and exits 0 without sending", async () => {
    for (const cmd of ["deployments", "runtime", "logs", "restarts"]) {
      const r = await occ(api, ["agent", cmd, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Examples:");
      expect(r.stdout).toContain("--endpoint");
      expect(r.stdout).toContain("Exit codes:");
    }
    expect(api.requests).toHaveLength(0);
  });

  it("sends a valid command line (control case for the tests above)", async () => {
    const r = await occ(api, [
      ...L,
      "--source",
      "gateway",
      "--deployment",
      "d3",
      "--tail",
      "5",
      "--since",
      "1h30m",
    ]);
    expect(r.code).toBe(0);
    expect(api.requests).toHaveLength(1);
    const q = api.requests[0]!.query;
    expect(Object.fromEntries(q)).toEqual({ source: "gateway", tailLines: "5", sinceSeconds: "5400" });
    expect(api.requests[0]!.headers.authorization).toBe("Bearer local:alice");
  });
});
