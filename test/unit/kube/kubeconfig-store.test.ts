import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetSecretValueCommand } from "@aws-sdk/client-secrets-manager";
import { describe, expect, it } from "vitest";
import { parseEksExec } from "../../../lib/kube/kubeconfig-policy.ts";
import {
  createKubeconfigStore,
  KUBECONFIG_CACHE_MS,
  type SecretsSender,
} from "../../../lib/kube/kubeconfig-store.ts";
import { failure } from "../../support/failure.ts";
import { outage } from "../../support/outage.ts";

const SECRET_TOKEN = "s3cr3t-token-value-0123456789";
/** The cluster's Registry item allows static credentials (these tests use bearer tokens). */
const STATIC = { allowStaticCredentials: true };

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    "current-context": "ctx",
    clusters: [{ name: "c", cluster }],
    users: [{ name: "u", user }],
    contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
  });
}

const HTTPS = { server: "https://k8s.example.com:6443", "certificate-authority-data": "Q0E=" };

function fakeSecrets(values: Record<string, string>) {
  const calls: string[] = [];
  const sender: SecretsSender = {
    send: (async (command: unknown) => {
      expect(command).toBeInstanceOf(GetSecretValueCommand);
      const id = (command as GetSecretValueCommand).input.SecretId as string;
      calls.push(id);
      if (!(id in values))
        throw Object.assign(new Error("ResourceNotFoundException"), { name: "ResourceNotFoundException" });
      return { SecretString: values[id] };
    }) as SecretsSender["send"],
  };
  return { sender, calls };
}

describe("KubeconfigStore policy", () => {
  const base = { allowInsecureClusters: false, secretPrefix: "runtime-logs/clusters/" };

  it("accepts a token kubeconfig from Secrets Manager and builds a single-context KubeConfig", async () => {
    const { sender } = fakeSecrets({
      "runtime-logs/clusters/prod": kubeconfig(HTTPS, { token: SECRET_TOKEN }),
    });
    const store = createKubeconfigStore({ ...base, secrets: sender });
    const kc = await store.get("prod", "secretsmanager:runtime-logs/clusters/prod", STATIC);
    expect(kc.getCurrentCluster()?.server).toBe("https://k8s.example.com:6443");
    expect(kc.getCurrentCluster()?.skipTLSVerify).toBe(false);
    expect(kc.getCurrentUser()?.token).toBe(SECRET_TOKEN);
  });

  it("caches a secret for 5 minutes per container, then reads it again", async () => {
    let now = 1_000_000;
    const { sender, calls } = fakeSecrets({
      "runtime-logs/clusters/a": kubeconfig(HTTPS, { token: SECRET_TOKEN }),
    });
    const store = createKubeconfigStore({ ...base, secrets: sender, now: () => now });
    await store.get("a", "secretsmanager:runtime-logs/clusters/a", STATIC);
    now += KUBECONFIG_CACHE_MS - 1;
    await store.get("a", "secretsmanager:runtime-logs/clusters/a", STATIC);
    expect(calls).toHaveLength(1);
    now += 2;
    await store.get("a", "secretsmanager:runtime-logs/clusters/a", STATIC);
    expect(calls).toHaveLength(2);
  });

  it("hands out one KubeConfig per cluster while the cached kubeconfig lasts, a new one when it changes", async () => {
    let now = 1_000_000;
    const values: Record<string, string> = {
      "runtime-logs/clusters/a": kubeconfig(HTTPS, { token: SECRET_TOKEN }),
      "runtime-logs/clusters/b": kubeconfig(HTTPS, { token: "other-token" }),
    };
    const { sender } = fakeSecrets(values);
    const store = createKubeconfigStore({ ...base, secrets: sender, now: () => now });
    const ref = "secretsmanager:runtime-logs/clusters/a";
    const first = await store.get("a", ref, STATIC);
    expect(await store.get("a", ref, STATIC)).toBe(first);
    const b = await store.get("b", "secretsmanager:runtime-logs/clusters/b", STATIC);
    expect(b).not.toBe(first);
    expect(b.getCurrentUser()?.token).toBe("other-token");
    expect(await store.get("a", ref, STATIC)).toBe(first);
    // A rotated secret, read after the cache's lifetime (the first read past it still serves the
    // old one while the refresh runs): a new KubeConfig with the new token.
    values["runtime-logs/clusters/a"] = kubeconfig(HTTPS, { token: "rotated-token" });
    now += KUBECONFIG_CACHE_MS + 1;
    expect(await store.get("a", ref, STATIC)).toBe(first);
    await new Promise((resolve) => setImmediate(resolve));
    const rotated = await store.get("a", ref, STATIC);
    expect(rotated).not.toBe(first);
    expect(rotated.getCurrentUser()?.token).toBe("rotated-token");
    expect(first.getCurrentUser()?.token).toBe(SECRET_TOKEN);
  });

  it("a failed refresh serves the last good kubeconfig and backs off; a first failure is 503-coded", async () => {
    let now = 1_000_000;
    const values: Record<string, string> = {
      "runtime-logs/clusters/a": kubeconfig(HTTPS, { token: SECRET_TOKEN }),
    };
    const { sender, calls } = fakeSecrets(values);
    const store = createKubeconfigStore({ ...base, secrets: sender, now: () => now, random: () => 0 });
    const ref = "secretsmanager:runtime-logs/clusters/a";
    await store.get("a", ref, STATIC);
    delete values["runtime-logs/clusters/a"]; // Secrets Manager answers errors from here on
    // 3 000 requests over 5 minutes, from the first one past the cache's lifetime: each served with
    // the last good kubeconfig.
    const r = await outage({
      requests: 3_000,
      spanMs: 3_000 * 100,
      startMs: now + KUBECONFIG_CACHE_MS + 100,
      setNow: (ms) => {
        now = ms;
      },
      read: async () => (await store.get("a", ref, STATIC)).getCurrentUser()?.token,
      calls: () => calls.length,
    });
    expect(r.failed).toBe(0);
    expect(r.values).toHaveLength(3_000);
    expect(new Set(r.values)).toEqual(new Set([SECRET_TOKEN]));
    // Waits of 0.5, 1, 2, … s up to 30 s: a dozen or so reads, not 3 000.
    expect(r.calls).toBeLessThanOrEqual(20);
    expect(r.calls).toBeGreaterThanOrEqual(5);

    const cold = fakeSecrets({});
    const fresh = createKubeconfigStore({ ...base, secrets: cold.sender, now: () => now, random: () => 0 });
    for (let i = 0; i < 3; i++) {
      const e = await failure(fresh.get("a", ref, STATIC));
      expect(e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    }
    expect(cold.calls).toHaveLength(1);
  });

  it("refuses secret names outside the prefix without calling Secrets Manager", async () => {
    const { sender, calls } = fakeSecrets({});
    const store = createKubeconfigStore({ ...base, secrets: sender });
    for (const ref of [
      "secretsmanager:other/prod",
      "secretsmanager:runtime-logs/clusters/",
      "secretsmanager:runtime-logs/clusters/../x",
      "secretsmanager:runtime-logs/clustersX",
      "vault:runtime-logs/clusters/a",
    ]) {
      const e = await failure(store.get("c1", ref));
      expect(e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
      expect(e.message).toContain("cluster c1");
    }
    expect(calls).toHaveLength(0);
  });

  const refused: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    [
      "insecure-skip-tls-verify",
      { server: "https://x", "insecure-skip-tls-verify": true },
      { token: SECRET_TOKEN },
    ],
    ["plain http", { server: "http://x" }, { token: SECRET_TOKEN }],
    ["proxy-url", { ...HTTPS, "proxy-url": "http://proxy" }, { token: SECRET_TOKEN }],
    ["auth-provider", HTTPS, { "auth-provider": { name: "gcp", config: { "access-token": SECRET_TOKEN } } }],
    ["impersonation", HTTPS, { token: SECRET_TOKEN, as: "admin" }],
    ["generic exec", HTTPS, { exec: { command: "sh", args: ["-c", `echo ${SECRET_TOKEN}`] } }],
    [
      "exec with extra aws args",
      HTTPS,
      { exec: { command: "aws", args: ["eks", "get-token", "--cluster-name", "x", "--role-arn", "r"] } },
    ],
    ["token-file in a stored kubeconfig", HTTPS, { "token-file": "/etc/passwd" }],
    [
      "certificate file in a stored kubeconfig",
      { ...HTTPS, "certificate-authority": "/etc/ssl/ca.pem" },
      { token: "t" },
    ],
  ];

  it.each(refused)("refuses %s, naming the cluster and never the contents", async (_label, cluster, user) => {
    const { sender } = fakeSecrets({ "runtime-logs/clusters/x": kubeconfig(cluster, user) });
    const store = createKubeconfigStore({ ...base, secrets: sender });
    const e = await failure(store.get("cl-9", "secretsmanager:runtime-logs/clusters/x", STATIC));
    expect(e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    expect(e.message).toContain("cluster cl-9");
    expect(e.message).not.toContain(SECRET_TOKEN);
    expect(e.message).not.toContain("/etc/");
  });

  it("allows insecure-skip-tls-verify and http only when ALLOW_INSECURE_CLUSTERS is set", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "kc-"));
    const file = path.join(dir, "kc.yaml");
    writeFileSync(
      file,
      kubeconfig(
        { server: "http://127.0.0.1:1/clusters/a", "insecure-skip-tls-verify": true },
        { token: "t" },
      ),
    );
    const strict = createKubeconfigStore({ ...base });
    await failure(strict.get("a", `file:${file}`, STATIC));
    const local = createKubeconfigStore({ ...base, allowInsecureClusters: true });
    const kc = await local.get("a", `file:${file}`, STATIC);
    expect(kc.getCurrentCluster()?.skipTLSVerify).toBe(true);
  });

  it("reads file references relative to a local kubeconfig and inlines them", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "kc-"));
    writeFileSync(path.join(dir, "token"), `${SECRET_TOKEN}\n`);
    writeFileSync(path.join(dir, "ca.pem"), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    const file = path.join(dir, "kc.yaml");
    writeFileSync(
      file,
      [
        "apiVersion: v1",
        "current-context: ctx",
        "clusters:",
        "- name: c",
        "  cluster:",
        "    server: https://h:6443",
        "    certificate-authority: ca.pem",
        "users:",
        "- name: u",
        "  user:",
        "    token-file: token",
        "contexts:",
        "- name: ctx",
        "  context: {cluster: c, user: u}",
        "",
      ].join("\n"),
    );
    const kc = await createKubeconfigStore(base).get("a", `file:${file}`, STATIC);
    expect(kc.getCurrentUser()?.token).toBe(SECRET_TOKEN);
    expect(Buffer.from(kc.getCurrentCluster()?.caData ?? "", "base64").toString()).toContain(
      "BEGIN CERTIFICATE",
    );
  });

  it("mints an EKS token for the aws eks get-token exec form with injected credentials", async () => {
    const exec = {
      apiVersion: "client.authentication.k8s.io/v1beta1",
      command: "aws",
      args: ["--region", "eu-west-1", "eks", "get-token", "--cluster-name", "prod-eu", "--output", "json"],
      env: null,
      interactiveMode: "IfAvailable",
      provideClusterInfo: false,
    };
    const { sender } = fakeSecrets({ "runtime-logs/clusters/eks": kubeconfig(HTTPS, { exec }) });
    const store = createKubeconfigStore({
      ...base,
      secrets: sender,
      credentials: async () => ({ accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" }),
      now: () => Date.parse("2026-11-29T12:00:00Z"),
    });
    const kc = await store.get("eks", "secretsmanager:runtime-logs/clusters/eks");
    const token = kc.getCurrentUser()?.token ?? "";
    expect(token).toMatch(/^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const url = new URL(Buffer.from(token.slice(11), "base64url").toString());
    expect(url.host).toBe("sts.eu-west-1.amazonaws.com");
    expect(kc.getCurrentUser()?.exec ?? null).toBeNull();
  });
});

describe("parseEksExec", () => {
  it("accepts the aws-cli forms, including --cluster-id and inline values", () => {
    expect(parseEksExec("aws", ["eks", "get-token", "--cluster-name", "a"])).toEqual({
      clusterName: "a",
      region: undefined,
    });
    expect(
      parseEksExec("/usr/local/bin/aws", ["--region=us-east-1", "eks", "get-token", "--cluster-id", "abc-1"]),
    ).toEqual({
      clusterName: "abc-1",
      region: "us-east-1",
    });
  });
  it.each([
    ["kubectl", ["eks", "get-token", "--cluster-name", "a"]],
    ["aws", ["sts", "get-caller-identity"]],
    ["aws", ["eks", "get-token"]],
    ["aws", ["eks", "get-token", "--cluster-name", "a", "--profile", "p"]],
    ["aws", ["eks", "get-token", "--cluster-name", "a;rm"]],
    ["aws", ["eks", "get-token", "--cluster-name", "a", "--region", "nowhere"]],
    ["aws", ["eks", "get-token", "--cluster-name", "a", "--cluster-id", "b"]],
  ])("refuses %s %j", (command, args) => {
    expect(() => parseEksExec(command, args)).toThrow();
  });
});
