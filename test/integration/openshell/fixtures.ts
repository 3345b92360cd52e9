/** A simulator with one gateway per auth mode, and drivers pointed at it through connection files. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxRef } from "../../../lib/domain.ts";
import {
  createConnectionStore,
  createSandboxDriver,
  type SandboxDriver,
} from "../../../lib/openshell/index.ts";
import { type OpenShellSim, startOpenShellSim } from "../../../local/openshell-sim/index.ts";
import { parseScenario } from "../../../local/scenario/schema.ts";
import { sandboxRef } from "../../support/sandbox.ts";

export const NOW = Date.parse("2026-11-29T12:00:00.000Z");

export interface ShellHarness {
  sim: OpenShellSim;
  files: Record<string, string>;
  driver(options?: { callTimeoutMs?: number; now?: () => number }): SandboxDriver;
  ref(gateway: string, sandboxName?: string): SandboxRef;
  call(deadlineMs?: number): { signal: AbortSignal; deadline: number };
  close(): Promise<void>;
}

/** The scenario's `openshell` block, parsed by the real scenario schema. */
export function gateways(openshell: unknown[]) {
  return parseScenario(
    { now: new Date(NOW).toISOString(), clusters: [], registry: { agents: [], grants: [] }, openshell },
    new Date(NOW),
  ).openshell;
}

export async function shellHarness(
  openshell: unknown[],
  nowMs: () => number = () => NOW,
): Promise<ShellHarness> {
  const sim = await startOpenShellSim({ gateways: gateways(openshell), nowMs });
  const dir = await mkdtemp(join(tmpdir(), "openshell-test-"));
  const files = await sim.writeConnections(dir);
  return {
    sim,
    files,
    driver(options = {}) {
      return createSandboxDriver({
        connections: createConnectionStore(),
        getGateway: async (id) => (files[id] ? { connectionRef: `file:${files[id]}` } : undefined),
        ...options,
      });
    },
    ref: (gateway, sandboxName = "sb") => sandboxRef(gateway, sandboxName),
    call: (deadlineMs = 10_000) => ({
      signal: new AbortController().signal,
      deadline: Date.now() + deadlineMs,
    }),
    async close() {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
