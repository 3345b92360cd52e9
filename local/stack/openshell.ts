/**
 * The local stack's OpenShell simulator (docs/sandbox.md § The simulator): started only when the
 * scenario has an `openshell` block, replaced when a reloaded scenario changes it, stopped when
 * one drops it. Each gateway's connection document is written to `{dir}/{gatewayId}.json` (mode
 * 0600, the throwaway CA and client key inside: `.local/` is never committed); the directory holds
 * only the current gateways' documents.
 */
import { rm } from "node:fs/promises";
import { handleSandboxAdmin, type OpenShellSim, startOpenShellSim } from "../openshell-sim/index.ts";
import type { ScenarioGateway } from "../scenario/openshell.ts";

export interface StackOpenShell {
  /** The running simulator, or undefined while the scenario has no gateways. */
  readonly sim: OpenShellSim | undefined;
  /** `{gatewayId: "127.0.0.1:port"}` (the stack file's `openshell` map); empty without gateways. */
  readonly endpoints: Record<string, string>;
  /** `{gatewayId: path}` of the connection documents; empty without gateways. */
  readonly connections: Record<string, string>;
  /** Follows the scenario's gateways: start, reload or stop the simulator, rewrite the documents. */
  sync(gateways: readonly ScenarioGateway[]): Promise<void>;
  /** The `/__sim/sandbox/{op}` admin operations (404 while there is no simulator). */
  admin(op: string, body: unknown): unknown;
  close(): Promise<void>;
}

export function createStackOpenShell(options: { dir: string; nowMs: () => number }): StackOpenShell {
  let sim: OpenShellSim | undefined;
  let endpoints: Record<string, string> = {};
  let connections: Record<string, string> = {};
  return {
    get sim() {
      return sim;
    },
    get endpoints() {
      return endpoints;
    },
    get connections() {
      return connections;
    },
    async sync(gateways) {
      await rm(options.dir, { recursive: true, force: true });
      if (gateways.length === 0) {
        const running = sim;
        sim = undefined;
        endpoints = {};
        connections = {};
        await running?.close();
        return;
      }
      if (sim) await sim.load(gateways);
      else sim = await startOpenShellSim({ gateways, nowMs: options.nowMs });
      endpoints = sim.endpoints();
      connections = await sim.writeConnections(options.dir);
    },
    admin: (op, body) => handleSandboxAdmin(sim, op, body),
    async close() {
      const running = sim;
      sim = undefined;
      await running?.close();
      // The documents name a simulator that is gone, and hold a client key: leave none behind.
      await rm(options.dir, { recursive: true, force: true });
    },
  };
}
