/**
 * A P4 dependency in its own process (so the parent's `process.cpuUsage()` is the handler's own):
 * `dynamo` runs the embedded dynalite with the service's tables; `sim` runs the kube API simulator
 * on a scenario, writes its kubeconfigs and appends sequenced lines on request. Speaks to the
 * parent over the IPC channel: `{cmd: "cpu"}` answers this process's CPU microseconds;
 * `{cmd: "append", everyMs, sizes}` (sim) appends a batch every `everyMs` here, so the parent
 * spends nothing on it, until `{cmd: "appendStop"}`, which answers the last sequence number;
 * `{cmd: "stop"}` exits.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDynamo, localDynamoOptions } from "../../lib/state/dynamo.ts";
import { startKubeSim } from "../../local/kube-sim/index.ts";
import { ensureTables, LOCAL_TABLE_NAMES, startDynalite } from "../../local/stack/dynamo.ts";
import { appendContinuously, SequencedAppender } from "./appender.ts";

type Message = { id: number } & (
  | { cmd: "cpu" }
  | { cmd: "append"; everyMs: number; sizes: number[] }
  | { cmd: "appendStop" }
  | { cmd: "stop" }
  | { cmd: "scenario"; raw: unknown }
);

const send = (message: unknown) => process.send?.(message);
const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function main(role: string): Promise<void> {
  let appender: SequencedAppender | null = null;
  let appending = false;
  let appends: Promise<void> = Promise.resolve();
  let close: () => Promise<void> = async () => {};
  process.on("message", (m: Message) => {
    if (m.cmd === "cpu") send({ id: m.id, cpuUs: cpuUs() });
    else if (m.cmd === "append" && appender) {
      appending = true;
      const running = () => appending;
      appends = appendContinuously(appender, { ...m, maxBatches: Number.MAX_SAFE_INTEGER, running });
      send({ id: m.id });
    } else if (m.cmd === "appendStop") {
      appending = false;
      void appends.then(() => send({ id: m.id, last: appender?.last ?? 0 }));
    } else if (m.cmd === "stop") void close().finally(() => process.exit(0));
    else if (m.cmd === "scenario") void startSim(m.id, m.raw);
  });

  async function startSim(id: number, raw: unknown): Promise<void> {
    const sim = await startKubeSim({ scenario: raw });
    appender = new SequencedAppender(sim);
    const kubeconfigs = await sim.writeKubeconfigs(
      join(mkdtempSync(join(tmpdir(), "p4-sim-")), "kubeconfigs"),
    );
    close = () => sim.close();
    const clusterId = Object.keys(kubeconfigs)[0] ?? "";
    send({
      id,
      kubeconfigs,
      registry: sim.scenario.registry,
      limits: sim.scenario.limits,
      clusterUrl: sim.clusterUrl(clusterId),
      token: sim.token(clusterId),
    });
  }

  if (role === "dynamo") {
    const dynamo = await startDynalite();
    const { client } = createDynamo(localDynamoOptions(dynamo.endpoint));
    await ensureTables(client, LOCAL_TABLE_NAMES);
    client.destroy();
    close = () => dynamo.close();
    send({ id: 0, endpoint: dynamo.endpoint });
  } else if (role !== "sim") {
    throw new Error(`unknown role ${role}`);
  }
  process.on("disconnect", () => void close().finally(() => process.exit(0)));
}

await main(process.argv[2] ?? "");
