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
  // Once loaded, a call goes straight to the driver (no extra await per cluster call).
  const call = <T>(use: (d: KubeDriver) => Promise<T>): Promise<T> =>
    loaded ? use(loaded) : driver().then(use);
  return {
    describeRuntime: (deployment, options) => call((d) => d.describeRuntime(deployment, options)),
    observeRuntime: (deployment, options) => call((d) => d.observeRuntime(deployment, options)),
    listReadablePods: (deployment, options) => call((d) => d.listReadablePods(deployment, options)),
    readLog: (deployment, options) => call((d) => d.readLog(deployment, options)),
    checkAccess: (clusterId, namespace, options) => call((d) => d.checkAccess(clusterId, namespace, options)),
    get clusterCalls() {
      return loaded?.clusterCalls ?? 0;
    },
  };
}
