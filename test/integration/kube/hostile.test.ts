/**
 * A hostile API server (docs/quality.md R9): a tiny node:http server answering crafted JSON through
 * the real client and a real kubeconfig. Every case must end in RUNTIME_LOGS_UNAVAILABLE with
 * nothing normalized and nothing leaked, or in a bounded, redacted result.
 */

import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RolePlacement } from "../../../lib/domain.ts";
import { createKubeDriver } from "../../../lib/kube/driver.ts";
import type { CallStats } from "../../../lib/kube/types.ts";
import { failure } from "../../support/failure.ts";
import { localKubeconfigStore } from "../../support/kube-driver.ts";
import { deployment, labels, uid } from "./fixtures.ts";

type Handler = (url: URL, res: http.ServerResponse) => void;
const TOKEN = "hostile-test-token";
const CANARY = "ghp_Canary0123456789abcdefghijklmnopqrstu";
const GW: RolePlacement = { clusterId: "evil", namespace: "tenant-a", plane: "control" };
const D = deployment({ gateway: GW });

let server: http.Server;
let routes: { pods: Handler; events: Handler; pod: Handler; log: Handler };
let driver: ReturnType<typeof createKubeDriver>;

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
};

function goodPod(
  extra: {
    metadata?: Record<string, unknown>;
    spec?: Record<string, unknown>;
    status?: Record<string, unknown>;
  } = {},
) {
  return {
    metadata: {
      name: "gw-0",
      namespace: "tenant-a",
      uid: uid(1),
      creationTimestamp: "2026-11-29T11:00:00Z",
      labels: labels("gateway"),
      ...extra.metadata,
    },
    spec: {
      nodeName: "node-1",
      containers: [{ name: "gateway", image: "registry.example/gw:1" }],
      ...extra.spec,
    },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: "True" }],
      containerStatuses: [
        {
          name: "gateway",
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: "2026-11-29T11:00:01Z" } },
        },
      ],
      ...extra.status,
    },
  };
}

const podList = (items: unknown[], meta: Record<string, unknown> = {}) => ({
  kind: "PodList",
  metadata: meta,
  items,
});
const event = (extra: Record<string, unknown> = {}) => ({
  metadata: { name: "e1", namespace: "tenant-a" },
  involvedObject: {
    kind: "Pod",
    name: "gw-0",
    namespace: "tenant-a",
    uid: uid(1),
    fieldPath: "spec.containers{gateway}",
  },
  type: "Warning",
  reason: "BackOff",
  message: "Back-off restarting failed container",
  count: 1,
  lastTimestamp: "2026-11-29T11:59:00Z",
  ...extra,
});

function defaults() {
  routes = {
    pods: (_u, res) => json(res, 200, podList([goodPod()])),
    events: (_u, res) => json(res, 200, { kind: "EventList", metadata: {}, items: [event()] }),
    pod: (_u, res) => json(res, 200, goodPod()),
    log: (_u, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("2026-11-29T11:59:59.000000000Z hello\n");
    },
  };
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(res, 401, { kind: "Status", code: 401 });
    const p = url.pathname;
    if (p.endsWith("/log")) return routes.log(url, res);
    if (p.endsWith("/events")) return routes.events(url, res);
    if (p.endsWith("/pods")) return routes.pods(url, res);
    if (/\/pods\/[^/]+$/.test(p)) return routes.pod(url, res);
    json(res, 404, { kind: "Status", code: 404 });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const dir = mkdtempSync(path.join(tmpdir(), "hostile-"));
  const file = path.join(dir, "evil.kubeconfig");
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      "current-context": "evil",
      clusters: [
        { name: "evil", cluster: { server: `http://127.0.0.1:${port}`, "insecure-skip-tls-verify": true } },
      ],
      users: [{ name: "evil", user: { token: TOKEN } }],
      contexts: [{ name: "evil", context: { cluster: "evil", user: "evil" } }],
    }),
  );
  driver = createKubeDriver({
    kubeconfigs: localKubeconfigStore(),
    getCluster: async (clusterId) => ({
      clusterId,
      kubeconfigRef: `file:${file}`,
      allowStaticCredentials: true,
    }),
    callTimeoutMs: 1000,
  });
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
beforeEach(defaults);

const call = (stats?: CallStats) => ({
  signal: new AbortController().signal,
  deadline: Date.now() + 10_000,
  ...(stats ? { stats } : {}),
});

const describeIt = () => driver.describeRuntime(D, { events: true, ...call() });

describe("hostile Pod lists", () => {
  it("the well-behaved baseline works", async () => {
    const d = await describeIt();
    expect(d.pods[0]?.events[0]).toMatchObject({ reason: "BackOff", lastObservedAt: "2026-11-29T11:59:00Z" });
  });

  const cases: Array<[string, () => unknown]> = [
    [
      "a foreign-namespace Pod",
      () => podList([goodPod(), goodPod({ metadata: { name: "x", uid: uid(2), namespace: "other" } })]),
    ],
    ["a Pod with wrong labels", () => podList([goodPod({ metadata: { labels: labels("gateway", "d9") } })])],
    [
      "an offset creationTimestamp",
      () => podList([goodPod({ metadata: { creationTimestamp: "2026-11-29T13:00:00+01:00" } })]),
    ],
    [
      "an impossible date",
      () => podList([goodPod({ metadata: { creationTimestamp: "2026-02-30T11:00:00Z" } })]),
    ],
    [
      "an offset startedAt",
      () =>
        podList([
          goodPod({
            status: {
              containerStatuses: [
                {
                  name: "gateway",
                  restartCount: 0,
                  state: { running: { startedAt: "2026-11-29T11:00:00-00:00" } },
                },
              ],
            },
          }),
        ]),
    ],
    ["a malformed UID", () => podList([goodPod({ metadata: { uid: "x".repeat(65) } })])],
    ["an oversized Pod name", () => podList([goodPod({ metadata: { name: `a${"b".repeat(300)}` } })])],
    [
      "a negative restart count",
      () => podList([goodPod({ status: { containerStatuses: [{ name: "gateway", restartCount: -1 }] } })]),
    ],
    [
      "a fractional restart count",
      () => podList([goodPod({ status: { containerStatuses: [{ name: "gateway", restartCount: 1.5 }] } })]),
    ],
    [
      "17 Pods",
      () =>
        podList(
          Array.from({ length: 17 }, (_, i) => goodPod({ metadata: { name: `gw-${i}`, uid: uid(i) } })),
        ),
    ],
    [
      "17 containers",
      () =>
        podList([
          goodPod({ spec: { containers: Array.from({ length: 17 }, (_, i) => ({ name: `c${i}` })) } }),
        ]),
    ],
    ["a list that needs continuation", () => podList([goodPod()], { continue: "abc" })],
    ["two Pods of one name", () => podList([goodPod(), goodPod({ metadata: { uid: uid(2) } })])],
    ["two Pods of one UID", () => podList([goodPod(), goodPod({ metadata: { name: "gw-1" } })])],
    [
      "a duplicate among Pods being deleted",
      () =>
        podList([
          goodPod(),
          goodPod({ metadata: { name: "gw-1", uid: uid(1), deletionTimestamp: "2026-11-29T11:30:00Z" } }),
        ]),
    ],
    ["an unknown phase", () => podList([goodPod({ status: { phase: "Exploding" } })])],
    ["not JSON", () => "{not json"],
  ];

  it.each(cases)("refuses %s with RUNTIME_LOGS_UNAVAILABLE", async (_label, body) => {
    routes.pods = (_u, res) => json(res, 200, body());
    const e = await failure(describeIt());
    expect(e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    expect(e.message).toContain("cluster evil");
    // The logs route's listing applies the same rules.
    const listed = await failure(driver.listReadablePods(D, { role: "gateway", ...call() }));
    expect(listed.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("refuses a body over the size cap without buffering it all", async () => {
    routes.pods = (_u, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`{"items":[{"metadata":{"name":"${"a".repeat(5 * 1024 * 1024)}`);
      res.end(`"}}]}`);
    };
    expect((await failure(describeIt())).code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("keeps cluster text out of errors: a 403 Status with a secret is RBAC and the secret is redacted", async () => {
    routes.pods = (_u, res) =>
      json(res, 403, { kind: "Status", code: 403, message: `pods is forbidden: token ${CANARY}` });
    const e = await failure(describeIt());
    expect(e.code).toBe("RUNTIME_LOGS_CLUSTER_RBAC");
    expect(e.message).not.toContain(CANARY);
    expect(JSON.stringify(e)).not.toContain(CANARY);
  });
});

describe("hostile Event lists", () => {
  it("stops an endless continue loop after a bounded number of pages", async () => {
    let n = 0;
    routes.events = (_u, res) => json(res, 200, { metadata: { continue: `t${n++}` }, items: [event()] });
    const stats: CallStats = { clusterCalls: 0 };
    const e = await failure(driver.describeRuntime(D, { events: true, ...call(stats) }));
    expect(e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    expect(stats.clusterCalls).toBeLessThanOrEqual(1 + 20);
  });

  it("stops at a repeated continue token", async () => {
    const stats: CallStats = { clusterCalls: 0 };
    routes.events = (_u, res) => json(res, 200, { metadata: { continue: "same" }, items: [] });
    expect((await failure(driver.describeRuntime(D, { events: true, ...call(stats) }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
    expect(stats.clusterCalls).toBe(3);
  });

  it.each([
    ["an offset lastTimestamp", { lastTimestamp: "2026-11-29T11:59:00+00:00" }],
    ["a malformed eventTime", { eventTime: "yesterday" }],
    ["an offset series time", { series: { count: 2, lastObservedTime: "2026-11-29T11:59:00.000000+02:00" } }],
    ["a 70 KiB message", { message: "x".repeat(70 * 1024) }],
    ["a negative count", { count: -3 }],
  ])("refuses %s, even on an Event that would be dropped", async (_label, extra) => {
    routes.events = (_u, res) =>
      json(res, 200, { metadata: {}, items: [event(), event({ ...extra, type: "Custom" })] });
    expect((await failure(describeIt())).code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("drops foreign Events, caps and redacts long messages", async () => {
    routes.events = (_u, res) =>
      json(res, 200, {
        metadata: {},
        items: [
          event({ message: `${"word ".repeat(400)} ${CANARY}`, reason: `Reason-${CANARY}` }),
          event({ involvedObject: { kind: "Pod", name: "other", uid: uid(2) } }),
          event({ involvedObject: { kind: "Node", name: "gw-0", uid: uid(1) } }),
          event({
            message: `pulling image "registry.example/gw:1" on node-1 ${CANARY}`,
            lastTimestamp: "2026-11-29T11:00:00Z",
          }),
        ],
      });
    const d = await describeIt();
    const evs = d.pods[0]?.events ?? [];
    expect(evs).toHaveLength(2);
    expect(JSON.stringify(d)).not.toContain(CANARY);
    expect(JSON.stringify(d)).not.toContain("node-1");
    expect(JSON.stringify(d)).not.toContain("registry.example");
    expect(evs[0]?.message.length).toBeLessThanOrEqual(1024);
    expect(evs[0]?.reason.length).toBeLessThanOrEqual(128);
  });
});

describe("hostile log answers", () => {
  const read = () =>
    driver.readLog(D, {
      role: "gateway",
      pod: "gw-0",
      podUid: uid(1),
      container: "gateway",
      previous: false,
      ...call(),
    });

  it("treats 'unable to retrieve container logs' as an empty page", async () => {
    routes.log = (_u, res) => {
      res.writeHead(200);
      res.end("unable to retrieve container logs for containerd://0123abcd");
    };
    expect((await read()).text).toBe("");
  });

  it("accepts only the exact waiting-to-start 400", async () => {
    routes.log = (_u, res) =>
      json(res, 400, {
        kind: "Status",
        code: 400,
        message: 'container "gateway" in pod "gw-0" is waiting to start: ContainerCreating',
      });
    expect((await read()).text).toBe("");
    routes.log = (_u, res) =>
      json(res, 400, {
        kind: "Status",
        code: 400,
        message: 'container "gateway" in pod "gw-0" is waiting to start: ImagePullBackOff',
      });
    expect((await failure(read())).code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    routes.log = (_u, res) =>
      json(res, 400, {
        kind: "Status",
        code: 400,
        message: 'container "other" in pod "gw-0" is waiting to start: ContainerCreating',
      });
    expect((await failure(read())).code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("on previous=true accepts only the exact 'no previous instance' 400; any other 400 is UNAVAILABLE", async () => {
    const readPrevious = () =>
      driver.readLog(D, {
        role: "gateway",
        pod: "gw-0",
        podUid: uid(1),
        container: "gateway",
        previous: true,
        ...call(),
      });
    const status400 =
      (message: string): Handler =>
      (_u, res) =>
        json(res, 400, { kind: "Status", code: 400, message });
    routes.log = status400('previous terminated container "gateway" in pod "gw-0" not found');
    expect((await readPrevious()).text).toBe("");
    for (const message of [
      'previous terminated container "other" in pod "gw-0" not found',
      'previous terminated container "gateway" in pod "gw-1" not found',
      'previous terminated container "gateway" in pod "gw-0" not found (retry)',
      "container gateway is not valid for pod gw-0",
      `a container name must be specified for pod gw-0 ${CANARY}`,
    ]) {
      routes.log = status400(message);
      const e = await failure(readPrevious());
      expect(e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
      expect(e.message).not.toContain(CANARY);
    }
    // The "no previous instance" answer is not an empty page for a current read.
    routes.log = status400('previous terminated container "gateway" in pod "gw-0" not found');
    expect((await failure(read())).code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("cuts a body that ignores limitBytes and marks it truncated", async () => {
    routes.log = (_u, res) => {
      res.writeHead(200);
      res.end("2026-11-29T11:59:59.000000000Z x\n".repeat(70_000)); // ≈ 2.2 MiB
    };
    const chunk = await read();
    expect(Buffer.byteLength(chunk.text)).toBe(1_048_576);
    expect(chunk.truncated).toBe(true);
  });

  it("a 404 during the read is a gone Pod; a 500 is UNAVAILABLE", async () => {
    routes.log = (_u, res) => json(res, 404, { kind: "Status", code: 404, message: "pods gw-0 not found" });
    expect((await failure(read())).name).toBe("PodGoneError");
    routes.log = (_u, res) => json(res, 500, { kind: "Status", code: 500, message: CANARY });
    const e = await failure(read());
    expect(e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    expect(e.message).not.toContain(CANARY);
  });

  it("a re-read finding the name taken by another deployment's Pod reports the Pod gone", async () => {
    routes.pod = (_u, res) =>
      json(res, 200, goodPod({ metadata: { uid: uid(5), labels: labels("gateway", "d4") } }));
    expect((await read()).observedAfter).toBeNull();
  });

  it("a re-read that returns a different Pod is refused", async () => {
    routes.pod = (_u, res) => json(res, 200, goodPod({ metadata: { namespace: "other" } }));
    expect((await failure(read())).code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });
});
