/**
 * PC (docs/capacity.md § Kubernetes API): the per-call cost of a kept-alive cluster connection
 * against a new one. The simulator's `GET /version` behind a TLS terminator with a throwaway CA
 * (real clusters speak TLS), sent through the driver's transport: once with the kubeconfig
 * store's keep-alive agent (one connection for every call), once with a fresh agent per call, as
 * client-node does by itself (a TCP and TLS handshake per call).
 *
 * Knob: BENCH_PC_CALLS (calls per mode per round, default 200).
 */
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import { send } from "../lib/kube/transport.ts";
import { startKubeSim } from "../local/kube-sim/index.ts";
import { createSimPki } from "../local/openshell-sim/certs.ts";
import { envInt } from "./support/env.ts";
import { median } from "./support/stats.ts";

export const id = "PC";

async function timeCalls(url: string, calls: number, agentFor: () => https.Agent): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = process.hrtime.bigint();
    const res = await send(
      { url, method: "GET", headers: { authorization: "Bearer t" }, agent: agentFor() },
      { signal: new AbortController().signal, maxBytes: 65_536, overflow: "fail" },
    );
    if (res.status !== 200) throw new Error(`GET /version answered ${res.status}`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

export async function run(): Promise<Record<string, unknown>> {
  const calls = envInt("BENCH_PC_CALLS", 200);
  const sim = await startKubeSim({
    scenario: {
      clusters: [{ id: "c1", token: "t", namespaces: [{ name: "ns" }] }],
      registry: { agents: [], grants: [] },
    },
  });
  const pki = await createSimPki();
  let handshakes = 0;
  const terminator = tls.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (client) => {
    handshakes++;
    const upstream = net.connect(sim.port, "127.0.0.1");
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => terminator.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(terminator.address() as net.AddressInfo).port}/clusters/c1/version`;
  const tlsOptions = { ca: pki.caPem, servername: "localhost" };
  const keptAlive = new https.Agent({ ...tlsOptions, keepAlive: true });
  const fresh: https.Agent[] = [];
  try {
    // Warm-up, then rounds alternating the two modes so machine noise hits both alike.
    await timeCalls(url, 20, () => keptAlive);
    const kept: number[] = [];
    const renewed: number[] = [];
    let keptHandshakes = 0;
    for (let round = 0; round < 3; round++) {
      const before = handshakes;
      kept.push(...(await timeCalls(url, calls, () => keptAlive)));
      keptHandshakes += handshakes - before;
      renewed.push(
        ...(await timeCalls(url, calls, () => {
          const agent = new https.Agent({ ...tlsOptions, keepAlive: false });
          fresh.push(agent);
          return agent;
        })),
      );
    }
    const keptMedian = median(kept);
    const newMedian = median(renewed);
    return {
      bench: "PC cluster connection per call (TLS, simulator GET /version)",
      kept_alive_median_ms: round3(keptMedian),
      new_connection_median_ms: round3(newMedian),
      ratio_new_to_kept: round3(newMedian / keptMedian),
      kept_alive_handshakes: keptHandshakes,
      calls_per_mode: kept.length,
    };
  } finally {
    keptAlive.destroy();
    for (const a of fresh) a.destroy();
    terminator.close();
    await sim.close();
  }
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
