/**
 * The real Kubernetes driver over kubeconfig files (the simulator's, or a hostile server's), as the
 * integration tests and benches build it: plain-HTTP clusters allowed, static tokens allowed.
 */
import { createKubeDriver, type KubeDriver, type KubeDriverOptions } from "../../lib/kube/driver.ts";
import { createKubeconfigStore } from "../../lib/kube/kubeconfig-store.ts";

/** A kubeconfig store as a local or test cluster needs it (http allowed). */
export const localKubeconfigStore = () =>
  createKubeconfigStore({ allowInsecureClusters: true, secretPrefix: "runtime-logs/clusters/" });

/** A driver whose clusters are `kubeconfigs` (cluster ID → file path); other IDs are not registered. */
export function driverOverFiles(
  kubeconfigs: Record<string, string>,
  options: Partial<KubeDriverOptions> = {},
): KubeDriver {
  return createKubeDriver({
    kubeconfigs: localKubeconfigStore(),
    getCluster: async (clusterId) =>
      kubeconfigs[clusterId]
        ? { clusterId, kubeconfigRef: `file:${kubeconfigs[clusterId]}`, allowStaticCredentials: true }
        : undefined,
    ...options,
  });
}
