/**
 * Shared pieces of the HTTP end-to-end tests: a small scenario on the local stack (dynalite +
 * kube API simulator + the real handlers) and a client that speaks the contract.
 */

import { randomBytes } from "node:crypto";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll } from "vitest";
import { createDynamo, localDynamoOptions } from "../../../lib/state/dynamo.ts";
import { type LocalStack, startLocalStack } from "../../../local/stack/index.ts";
import { workloadLabels } from "../../support/scenario.ts";

export const NS = "acme";
export const CLUSTER = "c1";
export const K8S_NS = "tenant-a";
export const GW_POD = "gw-0";
export const GW_UID = "6f1c0000-0000-4000-8000-000000000001";
export const H_POD = "h-0";
export const H_UID = "6f1c0000-0000-4000-8000-000000000002";
export const LOGS = `/namespaces/${NS}/agents/support/deployments/d2/runtime/logs`;
export const RUNTIME = `/namespaces/${NS}/agents/support/deployments/d2/runtime`;

const rand = (n: number, alphabet: string) =>
  Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Fresh random secrets per run: none of these may ever reach a client. */
export function canaries() {
  const b64url = (n: number) => rand(n, `${ALNUM}-_`);
  const c = {
    openai: `sk-proj-${rand(40, ALNUM)}`,
    github: `ghp_${rand(36, ALNUM)}`,
    bearer: `${rand(12, ALNUM)}9${rand(20, ALNUM)}`,
    password: `pw${rand(18, ALNUM)}`,
    aws: `AKIA${rand(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}`,
    jwt: `eyJ${b64url(20)}.eyJ${b64url(30)}.${b64url(40)}`,
    pem: rand(64, ALNUM),
    slack: `xoxb-${rand(10, "0123456789")}-${rand(24, ALNUM)}`,
    node: `ip-10-0-${rand(4, "0123456789")}.ec2.internal`,
  };
  const lines = [
    `ERROR upstream failed with key ${c.openai}`,
    `{"level":"warn","subsystem":"gateway","message":"retrying with token ${c.github}"}`,
    `INFO outbound request Authorization: Bearer ${c.bearer}`,
    `WARN db connect password=${c.password} host=db`,
    `DEBUG using aws_access_key_id ${c.aws}`,
    `INFO session jwt=${c.jwt}`,
    "-----BEGIN RSA PRIVATE KEY-----",
    c.pem,
    "-----END RSA PRIVATE KEY-----",
    `INFO slack ${c.slack}`,
  ];
  return { values: Object.values(c), lines, node: c.node, secrets: c };
}

export function scenario(
  lines: string[],
  options: { limits?: Record<string, number>; eventMessage?: string } = {},
) {
  const at = (i: number) => `now-${60 - i}s`;
  return {
    now: "now",
    clock: "manual",
    ...(options.limits ? { limits: options.limits } : {}),
    clusters: [
      {
        id: CLUSTER,
        namespaces: [
          {
            name: K8S_NS,
            pods: [
              {
                name: GW_POD,
                uid: GW_UID,
                createdAt: "now-1h",
                nodeName: "node-1",
                labels: workloadLabels("gateway", "d2"),
                containers: [
                  {
                    name: "gateway",
                    image: "registry.example/gw:1.2",
                    logs: { current: lines.map((text, i) => [at(i), text]), previous: [] },
                  },
                ],
              },
              {
                name: H_POD,
                uid: H_UID,
                createdAt: "now-1h",
                labels: workloadLabels("agent", "d2"),
                containers: [{ name: "harness", logs: { current: [["now-5s", "INFO harness up"]] } }],
              },
            ],
            events: [
              {
                involvedObject: {
                  kind: "Pod",
                  name: GW_POD,
                  uid: GW_UID,
                  fieldPath: "spec.containers{gateway}",
                },
                type: "Warning",
                reason: "Unhealthy",
                message: options.eventMessage ?? "Liveness probe failed",
                lastTimestamp: "now-30s",
              },
            ],
          },
        ],
      },
    ],
    registry: {
      agents: [
        {
          namespaceId: NS,
          agentId: "support",
          activeDeploymentId: "d2",
          deployments: [
            {
              deploymentId: "d1",
              revision: 1,
              placement: { gateway: { clusterId: CLUSTER, namespace: K8S_NS, plane: "control" } },
            },
            {
              deploymentId: "d2",
              revision: 2,
              placement: {
                gateway: { clusterId: CLUSTER, namespace: K8S_NS, plane: "control" },
                agent: { clusterId: CLUSTER, namespace: K8S_NS, plane: "execution" },
              },
            },
            {
              deploymentId: "d9",
              revision: 3,
              runtimeLogging: "driver",
              placement: { gateway: { clusterId: CLUSTER, namespace: K8S_NS, plane: "control" } },
            },
          ],
        },
        {
          namespaceId: NS,
          agentId: "vault",
          tier: "sensitive",
          deployments: [
            {
              deploymentId: "v1",
              placement: { gateway: { clusterId: CLUSTER, namespace: K8S_NS, plane: "control" } },
            },
          ],
        },
      ],
      grants: [
        { principalId: "alice", namespaceId: NS, actions: ["read", "operate", "read_logs"] },
        { principalId: "bob", namespaceId: NS, agentId: "support", actions: ["read", "operate"] },
        { principalId: "carol", namespaceId: NS, actions: ["read", "operate", "administer"] },
        { principalId: "erin", namespaceId: NS, agentId: "support", actions: ["read_logs"] },
        { principalId: "mallory", namespaceId: "other", actions: ["read", "operate", "read_logs"] },
      ],
    },
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field in tests.
  json: any;
}

export function client(stack: LocalStack) {
  return async function get(path: string, principal: string | null = "alice"): Promise<Reply> {
    const response = await fetch(`${stack.apiUrl}${path}`, {
      headers: principal ? { authorization: `Bearer local:${principal}` } : {},
    });
    const text = await response.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, text, json };
  };
}

export const startStack = (raw: object) => startLocalStack({ scenario: raw, port: 0, quiet: true });

/**
 * The audit items of Agent `support` in the stack's Audit table, those whose sort key starts with
 * `skPrefix` when it is given.
 */
export async function auditItems(stack: LocalStack, skPrefix?: string): Promise<Record<string, unknown>[]> {
  const { client, doc } = createDynamo(localDynamoOptions(stack.dynamodbEndpoint));
  try {
    const out = await doc.send(
      new QueryCommand({
        TableName: stack.environment.AUDIT_TABLE,
        KeyConditionExpression: skPrefix === undefined ? "pk = :pk" : "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: {
          ":pk": `AGENT#${NS}#support`,
          ...(skPrefix === undefined ? {} : { ":prefix": skPrefix }),
        },
      }),
    );
    return out.Items ?? [];
  } finally {
    client.destroy();
  }
}

/** A bucket far above what a suite sends, for the suites that are not about the limiter. */
export const HIGH_LIMITS = { burst: 1000, ratePerSecond: 1000 };

export interface ApiSuite {
  readonly stack: LocalStack;
  /** The contract client of this suite's stack (`client(stack)`), usable once `beforeAll` has run. */
  readonly get: (path: string, principal?: string | null) => Promise<Reply>;
}

/**
 * What every HTTP suite starts with: one local stack on the scenario `build` makes when the suite
 * starts, closed after it. Hooks registered before this call run before the stack starts.
 */
export function apiSuite(build: () => object): ApiSuite {
  const state = {} as { stack: LocalStack; get: ReturnType<typeof client> };
  beforeAll(async () => {
    state.stack = await startStack(build());
    state.get = client(state.stack);
  });
  afterAll(async () => state.stack?.close());
  return {
    get stack() {
      return state.stack;
    },
    get: (path, principal) => state.get(path, principal),
  };
}
