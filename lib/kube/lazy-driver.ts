/**
 * A KubeDriver that loads its implementation, and with it the Kubernetes client, on first use.
 * The client is most of a bundle's bytes; routes that never talk to a cluster (`/health`, the
 * deployments list) must not pay for loading it at cold start (docs/quality.md, P3).
 */
import type { KubeDriver } from "./driver.ts";

export function lazyKubeDriver(load: () => Promise<KubeDriver>): KubeDriver {
  let loaded: KubeDriver | undefined;
  let loading: Promise<KubeDriver> | undefined;
  const driver = (): Promise<KubeDriver> => {
    loading ??= load().then(
      (d) => {
        loaded = d;
        return d;
      },
      (err: unknown) => {
        loading = undefined; // the next call tries again
        throw err;
      },
    );
    return loading;
  };
  return {
    describeRuntime: async (deployment, options) => (await driver()).describeRuntime(deployment, options),
    observeRuntime: async (deployment, options) => (await driver()).observeRuntime(deployment, options),
    listReadablePods: async (deployment, options) => (await driver()).listReadablePods(deployment, options),
    readLog: async (deployment, options) => (await driver()).readLog(deployment, options),
    checkAccess: async (clusterId, namespace, options) =>
      (await driver()).checkAccess(clusterId, namespace, options),
    get clusterCalls() {
      return loaded?.clusterCalls ?? 0;
    },
  };
}
