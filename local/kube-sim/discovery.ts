/**
 * Discovery documents: enough for kubectl's legacy (non-aggregated) discovery to map `pods`,
 * `events`, `namespaces` and `selfsubjectaccessreviews`.
 */

export const SIM_USER = "system:serviceaccount:runtime-logs:reader";

export function versionInfo(): Record<string, string> {
  return {
    major: "1",
    minor: "32",
    gitVersion: "v1.32.0-kube-sim",
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2026-01-01T00:00:00Z",
    goVersion: "go1.23.0",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

const AUTHZ = { groupVersion: "authorization.k8s.io/v1", version: "v1" };

export function apiGroupList(): Record<string, unknown> {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [{ name: "authorization.k8s.io", versions: [AUTHZ], preferredVersion: AUTHZ }],
  };
}

export function authorizationGroup(): Record<string, unknown> {
  return {
    kind: "APIGroup",
    apiVersion: "v1",
    name: "authorization.k8s.io",
    versions: [AUTHZ],
    preferredVersion: AUTHZ,
  };
}

export function coreResources(): Record<string, unknown> {
  return {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: [
      {
        name: "events",
        singularName: "event",
        namespaced: true,
        kind: "Event",
        verbs: ["get", "list"],
        shortNames: ["ev"],
      },
      {
        name: "namespaces",
        singularName: "namespace",
        namespaced: false,
        kind: "Namespace",
        verbs: ["get", "list"],
        shortNames: ["ns"],
      },
      {
        name: "pods",
        singularName: "pod",
        namespaced: true,
        kind: "Pod",
        verbs: ["get", "list"],
        shortNames: ["po"],
        categories: ["all"],
      },
      { name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] },
    ],
  };
}

export function authorizationResources(): Record<string, unknown> {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: "authorization.k8s.io/v1",
    resources: [
      {
        name: "selfsubjectaccessreviews",
        singularName: "selfsubjectaccessreview",
        namespaced: false,
        kind: "SelfSubjectAccessReview",
        verbs: ["create"],
      },
    ],
  };
}
