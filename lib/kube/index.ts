/** The Kubernetes driver's public surface (docs/kube.md). */
export {
  CALL_TIMEOUT_MS,
  type ClusterLookup,
  createKubeDriver,
  type DescribeOptions,
  type KubeDriver,
  type KubeDriverOptions,
  type ReadLogOptions,
} from "./driver.ts";
export { isPodGone, PodGoneError } from "./errors.ts";
export {
  createKubeconfigStore,
  KUBECONFIG_CACHE_MS,
  type KubeconfigStore,
  type KubeconfigStoreOptions,
  type SecretsSender,
} from "./kubeconfig-store.ts";
export type * from "./types.ts";
