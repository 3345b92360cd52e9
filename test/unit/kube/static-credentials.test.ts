/**
 * Static credentials (bearer token, token file, basic auth) are refused unless the cluster's
 * Registry item allows them (docs/kube.md § Kubeconfigs); exec (EKS) and client certificates need
 * no allowance. Generated kubeconfig shapes: the refusal carries its code and never secret text.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { GetSecretValueCommand } from "@aws-sdk/client-secrets-manager";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isServiceError } from "../../../lib/api/errors.ts";
import { KubeconfigRejected, resolveKubeconfig } from "../../../lib/kube/kubeconfig-policy.ts";
import { createKubeconfigStore, type SecretsSender } from "../../../lib/kube/kubeconfig-store.ts";
import { clusterFromItem, clusterToItem } from "../../../lib/registry/items.ts";
import { thrownBy } from "../../support/failure.ts";

const HTTPS = { server: "https://k8s.example.com:6443", "certificate-authority-data": "Q0E=" };
const POLICY = { allowInsecureClusters: false };

const document = (user: Record<string, unknown>, yaml: boolean): string => {
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    "current-context": "ctx",
    clusters: [{ name: "c", cluster: HTTPS }],
    users: [{ name: "u", user }],
    contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
  };
  if (!yaml) return JSON.stringify(doc);
  // Flow-style YAML with JSON-quoted scalars: the same document through the YAML path.
  return [
    "apiVersion: v1",
    "kind: Config",
    "current-context: ctx",
    "clusters:",
    `- {name: c, cluster: ${JSON.stringify(HTTPS)}}`,
    "users:",
    `- name: u`,
    `  user: ${JSON.stringify(user)}`,
    "contexts:",
    "- {name: ctx, context: {cluster: c, user: u}}",
    "",
  ].join("\n");
};

/** Secret-looking values: printable, long enough to be recognisable in a message. */
const secret = fc.stringMatching(/^[A-Za-z0-9._~+/-]{12,64}$/).map((s) => `S3CRET${s}`);

/** A user with at least one static credential field, possibly mixed with others. */
const staticUser = fc
  .record(
    {
      token: secret,
      "token-file": fc.constantFrom("token", "/var/run/secrets/token"),
      username: secret,
      password: secret,
    },
    { requiredKeys: [] },
  )
  .filter((u) => Object.keys(u).length > 0);

const refusalOf = (fn: () => unknown): KubeconfigRejected => thrownBy(fn, KubeconfigRejected);

describe("static credentials in kubeconfigs", () => {
  it("refuses every generated static-credential shape without the cluster's allowance, leaking nothing", () => {
    fc.assert(
      fc.property(staticUser, fc.boolean(), (user, yaml) => {
        const e = refusalOf(() => resolveKubeconfig(document(user, yaml), POLICY));
        expect(e.code).toBe("KUBECONFIG_STATIC_CREDENTIALS_REFUSED");
        for (const value of Object.values(user).filter((v) => v.startsWith("S3CRET"))) {
          expect(e.message).not.toContain(value);
        }
        expect(e.message).not.toContain("S3CRET");
      }),
      { numRuns: 300 },
    );
  });

  it("accepts a single static credential kind when the cluster allows it", () => {
    const token = fc.record({ token: secret });
    const basic = fc.record({ username: secret, password: secret });
    fc.assert(
      fc.property(fc.oneof(token, basic), fc.boolean(), (user, yaml) => {
        const resolved = resolveKubeconfig(document(user, yaml), { ...POLICY, allowStaticCredentials: true });
        expect(resolved.credentials.kind).toBe("token" in user ? "token" : "basic");
      }),
      { numRuns: 100 },
    );
  });

  it("accepts the EKS exec form and client certificates without any allowance", () => {
    const eks = resolveKubeconfig(
      document({ exec: { command: "aws", args: ["eks", "get-token", "--cluster-name", "prod"] } }, true),
      POLICY,
    );
    expect(eks.credentials.kind).toBe("eks");
    const cert = resolveKubeconfig(
      document({ "client-certificate-data": "Q0VSVA==", "client-key-data": "S0VZ" }, false),
      POLICY,
    );
    expect(cert.credentials.kind).toBe("certificate");
  });

  it("refuses a token file before reading it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "kc-static-"));
    // The file does not exist: a read would answer "cannot be read", the refusal comes first.
    const e = refusalOf(() =>
      resolveKubeconfig(document({ "token-file": "missing" }, true), { ...POLICY, baseDir: dir }),
    );
    expect(e.code).toBe("KUBECONFIG_STATIC_CREDENTIALS_REFUSED");
  });

  it("the store answers unavailable with the refusal code for operators, per cluster allowance", async () => {
    const token = "S3CRETstore-token-0123456789";
    const calls: string[] = [];
    const sender: SecretsSender = {
      send: (async (command: unknown) => {
        calls.push((command as GetSecretValueCommand).input.SecretId as string);
        return { SecretString: document({ token }, true) };
      }) as SecretsSender["send"],
    };
    const store = createKubeconfigStore({
      allowInsecureClusters: false,
      secretPrefix: "runtime-logs/clusters/",
      secrets: sender,
    });
    const ref = "secretsmanager:runtime-logs/clusters/a";
    let error: unknown;
    await store.get("a", ref).catch((e: unknown) => {
      error = e;
    });
    expect(isServiceError(error) && error.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    expect((error as Error).message).toContain("KUBECONFIG_STATIC_CREDENTIALS_REFUSED");
    expect((error as Error).message).not.toContain(token);
    const kc = await store.get("a", ref, { allowStaticCredentials: true });
    expect(kc.getCurrentUser()?.token).toBe(token);
    expect(calls).toEqual(["runtime-logs/clusters/a", "runtime-logs/clusters/a"]);
  });

  it("the Registry item stores the allowance only when granted and reads it back", () => {
    const base = {
      clusterId: "a",
      kubeconfigRef: "secretsmanager:runtime-logs/clusters/a",
      displayName: "A",
    };
    expect(clusterToItem(base)).not.toHaveProperty("allowStaticCredentials");
    expect(clusterToItem({ ...base, allowStaticCredentials: false })).not.toHaveProperty(
      "allowStaticCredentials",
    );
    const allowed = clusterToItem({ ...base, allowStaticCredentials: true });
    expect(allowed.allowStaticCredentials).toBe(true);
    expect(clusterFromItem(allowed)).toEqual({ ...base, allowStaticCredentials: true });
    expect(clusterFromItem(clusterToItem(base))).toEqual(base);
    expect(() => clusterFromItem({ ...allowed, allowStaticCredentials: "yes" })).toThrow();
  });
});
