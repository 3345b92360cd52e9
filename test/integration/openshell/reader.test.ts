/** The sandbox source reader through the real driver and the simulator: query rules, page, resume, 404. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentRecord } from "../../../lib/domain.ts";
import { SandboxSourceReader } from "../../../lib/routes/sources/sandbox.ts";
import { NOW, type ShellHarness, shellHarness } from "./fixtures.ts";

const KEYS = { current: { id: "k1", secret: Buffer.alloc(32, 7) } };
const BINDING = {
  principalId: "p",
  namespaceId: "ns",
  agentId: "a",
  deploymentId: "d",
  source: "sandbox" as const,
};

let h: ShellHarness;
beforeAll(async () => {
  h = await shellHarness(
    [
      {
        id: "os1",
        sandboxes: [
          {
            name: "sb",
            id: "sbx-1",
            lines: [
              [
                "now-2s",
                "WARN",
                "proxy",
                "CONNECT evil.example:443 token=ghp_0123456789abcdefghijABCDEFGHIJ012345",
                { action: "deny" },
              ],
            ],
          },
        ],
      },
    ],
    () => Date.now(),
  );
});
afterAll(() => h?.close());

const deployment = (sandboxName: string): DeploymentRecord => ({
  namespaceId: "ns",
  agentId: "a",
  deploymentId: "d",
  revision: 1,
  createdAt: new Date(NOW).toISOString(),
  computeDriver: "kubernetes",
  runtimeLogging: "service",
  placement: {},
  sandbox: h.ref("os1", sandboxName),
});

async function poll(reader: SandboxSourceReader, sandboxName: string, cursor?: string) {
  const now = Date.now();
  const prepared = reader.prepare({
    query: { source: "sandbox", download: false, ...(cursor ? { cursor } : {}) },
    binding: BINDING,
    cursorKeys: KEYS,
    now,
  });
  const view = await reader.open({
    prepared,
    deployment: deployment(sandboxName),
    agentId: "a",
    namespaceId: "ns",
    binding: BINDING,
    keys: { cursor: KEYS, identity: null },
    requestId: "req_1",
    ...h.call(),
    now: () => now,
    checkDeadline: () => {},
  });
  const result = await view.read();
  if (result.kind !== "page") throw new Error("expected a page");
  return { newView: view.newView, data: JSON.parse(result.body).data };
}

describe("SandboxSourceReader", () => {
  it("refuses pod, container and previous with RUNTIME_LOGS_POD_INVALID", () => {
    const reader = new SandboxSourceReader(h.driver());
    for (const extra of [{ pod: "x" }, { container: "c" }, { previous: true }]) {
      expect(() =>
        reader.prepare({
          query: { source: "sandbox", download: false, ...extra },
          binding: BINDING,
          cursorKeys: KEYS,
          now: NOW,
        }),
      ).toThrow(expect.objectContaining({ code: "RUNTIME_LOGS_POD_INVALID" }));
    }
  });

  it("reads a redacted page, follows across an append, and answers 404 for an unknown sandbox", async () => {
    const reader = new SandboxSourceReader(h.driver());
    const first = await poll(reader, "sb");
    expect(first.newView).toEqual({ previous: false, tailLines: 200 });
    expect(first.data.records).toHaveLength(1);
    expect(first.data.records[0]).toMatchObject({
      kind: "sandbox",
      level: "warn",
      fields: { action: "deny" },
    });
    expect(JSON.stringify(first.data)).not.toContain("ghp_0123456789");
    h.sim.append({
      gateway: "os1",
      sandbox: "sb",
      lines: [["now", "INFO", "proxy", "CONNECT api.github.com:443"]],
    });
    const second = await poll(reader, "sb", first.data.cursor);
    expect(second.newView).toBeNull();
    expect(second.data.records.map((r: { message: string }) => r.message)).toEqual([
      "CONNECT api.github.com:443",
    ]);
    await expect(poll(reader, "missing")).rejects.toMatchObject({
      code: "RUNTIME_LOGS_SANDBOX_NOT_FOUND",
      status: 404,
    });
  });
});
