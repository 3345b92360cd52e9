import { describe, expect, it } from "vitest";
import type { DeploymentRecord } from "../../../lib/domain.ts";
import type { KubeDriver } from "../../../lib/kube/driver.ts";
import { lazyKubeDriver } from "../../../lib/kube/lazy-driver.ts";

const deployment = {} as DeploymentRecord;
const options = { role: "gateway", signal: new AbortController().signal, deadline: 0 } as const;

describe("lazyKubeDriver", () => {
  it("loads the driver with the first call, once, and again after a load that failed", async () => {
    let loads = 0;
    const lazy = lazyKubeDriver(async () => {
      loads++;
      if (loads === 1) throw new Error("module failed to load");
      return {
        listReadablePods: async () => [],
        readLog: async (_d: DeploymentRecord, o: { pod: string }) => ({ text: o.pod }),
        get clusterCalls() {
          return 7;
        },
      } as unknown as KubeDriver;
    });
    expect(lazy.clusterCalls).toBe(0);
    await expect(lazy.listReadablePods(deployment, options)).rejects.toThrow("module failed to load");
    const [pods, chunk] = await Promise.all([
      lazy.listReadablePods(deployment, options),
      lazy.readLog(deployment, { ...options, pod: "gw-0", podUid: "u", container: "c", previous: false }),
    ]);
    expect(pods).toEqual([]);
    expect(chunk).toEqual({ text: "gw-0" });
    await lazy.listReadablePods(deployment, options);
    expect(loads).toBe(2);
    expect(lazy.clusterCalls).toBe(7);
  });
});
