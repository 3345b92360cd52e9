/**
 * The kube API simulator (docs/kube.md § The kube API simulator): start it in-process with a scenario,
 * point kubeconfigs at it, drive it with the admin operations, read its request counters.
 *
 *   const sim = await startKubeSim({ scenario: rawJson });
 *   const paths = await sim.writeKubeconfigs(dir);   // {clusterId: path}
 *   sim.restart({cluster, namespace, pod, container, exitCode: 137, reason: "OOMKilled"});
 *   await sim.close();
 */
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { writePrivateFiles } from "../private-files.ts";
import { isParsedScenario, parseScenario, type Scenario } from "../scenario/schema.ts";
import { formatKubeletTime } from "../scenario/time.ts";
import { handleAdmin } from "./admin.ts";
import type { AddEventInput, AppendInput, FaultInput, ReplacePodInput, RestartInput } from "./admin-input.ts";
import { kubeconfigYaml } from "./kubeconfig.ts";
import { SimServer, type SimStats } from "./server.ts";
import { type FaultState, World } from "./world.ts";

export type { AddEventInput, AppendInput, FaultInput, ReplacePodInput, RestartInput } from "./admin-input.ts";
export type { ApiRequest, ApiResponse, RequestKind } from "./cluster-api.ts";
export type { KindCounts, SimStats } from "./server.ts";
export type { FaultState } from "./world.ts";
export { SimError } from "./world.ts";

export interface StartKubeSimOptions {
  /** The raw scenario JSON (validated here), or an already parsed Scenario. */
  scenario: unknown;
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Anchor for relative times; default: now. */
  loadTime?: Date;
  /**
   * Called after `POST /__sim/scenario` replaced the world, before the admin API answers, so the
   * process hosting the simulator (the local stack) can follow: registry, kubeconfigs, limits.
   */
  onScenarioLoaded?: (scenario: Scenario) => Promise<void>;
}

export interface KubeSim {
  /** `http://127.0.0.1:{port}` (the `simUrl`). */
  readonly url: string;
  readonly port: number;
  /** The scenario as parsed (absolute times, defaults applied); replaced by loadScenario. */
  readonly scenario: Scenario;
  clusterUrl(clusterId: string): string;
  token(clusterId: string): string;
  kubeconfigYaml(clusterId: string): string;
  /** Writes `{dir}/{clusterId}.kubeconfig` (mode 0600) for every cluster; returns the paths. */
  writeKubeconfigs(dir: string): Promise<Record<string, string>>;
  /** The simulator's clock. */
  now(): Date;
  append(input: AppendInput): { appended: number };
  restart(input: RestartInput): { restartCount: number };
  replacePod(input: ReplacePodInput): { name: string; uid: string };
  addEvent(input: AddEventInput): { name: string };
  /** `now`: RFC 3339 or scenario-relative (`now-5m`, against the simulator's clock). */
  setClock(now: string | Date): { now: string };
  advanceClock(ms: number): { now: string };
  /** Faults of one cluster, `rawLog` included (`rawLog: null` clears every raw body of that cluster). */
  setFault(input: FaultInput): FaultState;
  /** Replaces everything (clusters, registry, clock); generated tokens stay stable per cluster. */
  loadScenario(raw: unknown, loadTime?: Date): Scenario;
  /** See StartKubeSimOptions.onScenarioLoaded; settable after start. */
  onScenarioLoaded: ((scenario: Scenario) => Promise<void>) | undefined;
  /**
   * Serves `POST /__sim/sandbox/{op}` behind the admin API's own guard (loopback peer, loopback
   * origin, JSON body): the local stack points it at the OpenShell simulator. Unset: 404.
   */
  sandboxAdmin: ((op: string, body: unknown) => unknown) | undefined;
  stats(): SimStats;
  resetStats(): void;
  close(): Promise<void>;
}

function toScenario(raw: unknown, loadTime: Date): Scenario {
  return isParsedScenario(raw) ? raw : parseScenario(raw, loadTime);
}

class KubeSimImpl implements KubeSim {
  url = "";
  port = 0;
  private world: World;
  private readonly server: SimServer;
  private unsubscribe: () => void = () => {};

  onScenarioLoaded: ((scenario: Scenario) => Promise<void>) | undefined;
  sandboxAdmin: ((op: string, body: unknown) => unknown) | undefined;

  constructor(scenario: Scenario) {
    this.world = new World(scenario);
    this.server = new SimServer({
      world: () => this.world,
      admin: (req, path, body) =>
        handleAdmin(
          {
            loadScenario: async (raw) => {
              const scenario = this.loadScenario(raw);
              await this.onScenarioLoaded?.(scenario);
            },
            append: (i) => this.world.append(i),
            restart: (i) => this.world.restart(i),
            replacePod: (i) => this.world.replacePod(i),
            addEvent: (i) => this.world.addEvent(i),
            setClock: (n) => this.world.setClock(n),
            advanceClock: (ms) => this.world.advanceClock(ms),
            setFault: (i) => this.world.setFault(i),
            stats: () => this.stats(),
            resetStats: () => this.resetStats(),
            nowText: () => formatKubeletTime(this.world.nowNs()),
            ...(this.sandboxAdmin ? { sandbox: this.sandboxAdmin } : {}),
          },
          req.method ?? "GET",
          path,
          body,
        ),
    });
    this.watchClock();
  }

  private watchClock(): void {
    this.unsubscribe();
    this.unsubscribe = this.world.clock.onChange(() => this.server.clockMoved());
  }

  async start(port: number): Promise<void> {
    this.port = await this.server.listen(port);
    this.url = `http://127.0.0.1:${this.port}`;
  }

  get scenario(): Scenario {
    return this.world.scenario;
  }

  clusterUrl(clusterId: string): string {
    return `${this.url}/clusters/${encodeURIComponent(this.world.cluster(clusterId).id)}`;
  }

  token(clusterId: string): string {
    return this.world.cluster(clusterId).token;
  }

  kubeconfigYaml(clusterId: string): string {
    const cluster = this.world.cluster(clusterId);
    const first = cluster.namespaces.keys().next();
    return kubeconfigYaml({
      clusterId: cluster.id,
      server: this.clusterUrl(cluster.id),
      token: cluster.token,
      namespace: first.done ? "default" : first.value,
    });
  }

  async writeKubeconfigs(dir: string): Promise<Record<string, string>> {
    const root = resolve(dir);
    await mkdir(root, { recursive: true });
    return writePrivateFiles(root, this.world.clusters.keys(), ".kubeconfig", (id) =>
      this.kubeconfigYaml(id),
    );
  }

  now(): Date {
    return new Date(Number(this.world.nowNs() / 1_000_000n));
  }

  append(input: AppendInput) {
    return this.world.append(input);
  }
  restart(input: RestartInput) {
    return this.world.restart(input);
  }
  replacePod(input: ReplacePodInput) {
    return this.world.replacePod(input);
  }
  addEvent(input: AddEventInput) {
    return this.world.addEvent(input);
  }
  setClock(now: string | Date) {
    return this.world.setClock(now);
  }
  advanceClock(ms: number) {
    return this.world.advanceClock(ms);
  }
  setFault(input: FaultInput) {
    return this.world.setFault(input);
  }

  loadScenario(raw: unknown, loadTime: Date = new Date()): Scenario {
    const scenario = toScenario(raw, loadTime);
    const tokens = new Map([...this.world.clusters.values()].map((c) => [c.id, c.token]));
    this.world = new World(scenario, tokens);
    this.watchClock();
    this.server.clockMoved();
    return scenario;
  }

  stats(): SimStats {
    return this.server.stats();
  }

  resetStats(): void {
    this.server.resetStats();
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.server.close();
  }
}

export async function startKubeSim(options: StartKubeSimOptions): Promise<KubeSim> {
  const sim = new KubeSimImpl(toScenario(options.scenario, options.loadTime ?? new Date()));
  sim.onScenarioLoaded = options.onScenarioLoaded;
  await sim.start(options.port ?? 0);
  return sim;
}
