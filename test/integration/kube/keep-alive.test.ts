/**
 * One kept-alive connection per cluster per container: the driver's calls against the simulator
 * reuse it, counted as server-side `connection` events on a TCP relay in front of the simulator.
 * A connection the server closed while idle is replaced without failing the call.
 */

import { readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { RolePlacement } from "../../../lib/domain.ts";
import { driverOverFiles } from "../../support/kube-driver.ts";
import { deployment, type Harness, harness, pod, scenario, uid } from "./fixtures.ts";

const GW: RolePlacement = { clusterId: "c1", namespace: "tenant-a", plane: "control" };
const D = deployment({ gateway: GW });

interface Relay {
  port: number;
  connections: () => number;
  dropIdle: () => void;
  close: () => Promise<void>;
}

/** A TCP relay to the simulator that counts the connections clients open to it. */
async function relay(target: number): Promise<Relay> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    count++;
    const upstream = net.connect(target, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    // What an API server does to connections idle past its timeout.
    dropIdle: () => {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

let h: Harness | undefined;
let r: Relay | undefined;
afterEach(async () => {
  await r?.close();
  await h?.close();
  h = r = undefined;
});

async function setup() {
  h = await harness(
    scenario(
      [
        {
          id: "c1",
          namespaces: [
            {
              name: "tenant-a",
              pods: [
                pod("gw-0", 1, "gateway", {
                  containers: [{ name: "gateway", logs: { current: [["now-1s", "INFO a"]], previous: [] } }],
                }),
              ],
            },
          ],
        },
      ],
      { gateway: GW },
    ),
  );
  const file = h.kubeconfigs.c1 as string;
  const text = readFileSync(file, "utf8");
  const simPort = Number(/127\.0\.0\.1:(\d+)/.exec(text)?.[1]);
  r = await relay(simPort);
  writeFileSync(file, text.replace(`127.0.0.1:${simPort}`, `127.0.0.1:${r.port}`));
  // A fresh container: its own kubeconfig store (and so its own connections).
  const driver = driverOverFiles({ c1: file });
  return { driver, relay: r, call: h.call };
}

const read = { role: "gateway", pod: "gw-0", podUid: uid(1), container: "gateway", previous: false } as const;

describe("kept-alive cluster connections", () => {
  it("serves a container's describe and read calls over one connection", async () => {
    const { driver, relay, call } = await setup();
    for (let i = 0; i < 5; i++) {
      await driver.describeRuntime(D, { roles: ["gateway"], events: true, ...call() });
      await driver.readLog(D, { ...read, tailLines: 10, ...call() });
    }
    expect(relay.connections()).toBe(1);
  });

  it("opens one connection per concurrent call at most, and reuses them afterwards", async () => {
    const { driver, relay, call } = await setup();
    await Promise.all(
      Array.from({ length: 3 }, () => driver.readLog(D, { ...read, tailLines: 1, ...call() })),
    );
    const afterBurst = relay.connections();
    expect(afterBurst).toBeLessThanOrEqual(3);
    for (let i = 0; i < 5; i++) await driver.readLog(D, { ...read, tailLines: 1, ...call() });
    expect(relay.connections()).toBe(afterBurst);
  });

  it("replaces a connection the server closed while idle, without failing the call", async () => {
    const { driver, relay, call } = await setup();
    await driver.readLog(D, { ...read, tailLines: 1, ...call() });
    relay.dropIdle();
    const chunk = await driver.readLog(D, { ...read, tailLines: 1, ...call() });
    expect(chunk.text).toContain("INFO a");
    expect(relay.connections()).toBe(2);
  });
});

describe("transport", () => {
  it("resends once on a fresh connection when a kept-alive socket turns out closed", async () => {
    const { send } = await import("../../../lib/kube/transport.ts");
    const http = await import("node:http");
    let served = 0;
    const seen = new WeakSet<object>();
    // Answers the first request of each connection; drops any later one without an answer,
    // as a server that timed the connection out does.
    const server = http.createServer((req, res) => {
      if (seen.has(req.socket)) {
        req.socket.destroy();
        return;
      }
      seen.add(req.socket);
      served++;
      res.end("ok");
    });
    let connections = 0;
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/x`;
    const agent = new http.Agent({ keepAlive: true });
    const options = { signal: new AbortController().signal, maxBytes: 100, overflow: "fail" as const };
    try {
      const first = await send({ url, method: "GET", headers: {}, agent }, options);
      const second = await send({ url, method: "GET", headers: {}, agent }, options);
      expect([first.body.toString(), second.body.toString()]).toEqual(["ok", "ok"]);
      expect(served).toBe(2);
      expect(connections).toBe(2);
    } finally {
      agent.destroy();
      server.close();
    }
  });
});
