/**
 * The local stack in one process: embedded dynalite with the service's tables, the kube API
 * simulator serving a scenario (and the OpenShell simulator when it has an `openshell` block),
 * kubeconfigs, connection documents and keys on disk, the registry loaded from the scenario, and
 * the local API Gateway in front of the real handlers. `npm start` runs it
 * (local/main.ts); e2e tests start it in-process on port 0.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createDynamo, localDynamoOptions } from "../../lib/state/dynamo.ts";
import { startKubeSim } from "../kube-sim/index.ts";
import type { OpenShellSim } from "../openshell-sim/index.ts";
import { loadRegistry, localCluster, localGateway } from "../registry-loader.ts";
import { renderBanner } from "./banner.ts";
import { createConsoleAssets } from "./console-assets.ts";
import { ensureTables, LOCAL_TABLE_NAMES, startDynalite } from "./dynamo.ts";
import { applyEnvironment, buildLambdaEnvironment } from "./environment.ts";
import { writeFileAtomic } from "./files.ts";
import { createHandlerLoader, type FunctionName } from "./handlers.ts";
import { ensureKeys } from "./keys.ts";
import { createStackOpenShell } from "./openshell.ts";
import { firstExample, grantedPrincipals, tourOf } from "./scenario-info.ts";
import { createApiServer } from "./server.ts";
import { assertStackFileFree, removeFileIfOwned, type StackInfo, writeStackFile } from "./stack-file.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const DEFAULT_SCENARIO = join(REPO_ROOT, "local/scenarios/demo.json");
/** Where `npm start` keeps kubeconfigs/, openshell/, keys/ and stack.json (git-ignored). */
export const DEFAULT_LOCAL_DIR = join(REPO_ROOT, ".local");

export interface LocalStackOptions {
  /** A scenario file path, or the raw scenario object. Default: local/scenarios/demo.json. */
  scenario?: string | object;
  /** API port on 127.0.0.1; 0 (the default here) picks a free one. */
  port?: number;
  /** Persist DynamoDB (and keep the keys) under this directory; in memory otherwise. */
  dataDir?: string;
  /** No banner, no request log. */
  quiet?: boolean;
  /** Where kubeconfigs/, keys/ and stack.json go. Default: a private temp dir, removed on close. */
  workDir?: string;
  /** The stack file; default `<workDir>/stack.json`. */
  stackFile?: string;
  /** Anchors the scenario's relative times (default: now). */
  loadTime?: Date;
  /** Import the handlers in the background once ready, so the first request is warm. */
  warm?: boolean;
  /**
   * Serve the deployable esbuild bundles (built here with the stack's own options, infra/bundle.ts)
   * instead of the TypeScript sources: what ships is what runs.
   */
  bundled?: boolean;
}

type KubeSim = Awaited<ReturnType<typeof startKubeSim>>;

export interface LocalStack {
  apiUrl: string;
  simUrl: string;
  sim: KubeSim;
  dynamodbEndpoint: string;
  kubeconfigs: Record<string, string>;
  /**
   * The OpenShell simulator while the scenario has gateways (its admin routes are also on
   * `simUrl`/__sim/sandbox/*), with `{gatewayId: "host:port"}` and the connection documents' paths.
   */
  openshell: {
    sim: OpenShellSim | undefined;
    endpoints: Record<string, string>;
    connections: Record<string, string>;
  };
  stackFile: string;
  workDir: string;
  /** The functions' environment, as set on this process. */
  environment: Record<string, string>;
  /**
   * Replaces the simulator's scenario and reloads the registry and kubeconfigs from it (the
   * simulator's own `POST /__sim/scenario` changes only the clusters). Limits stay as started.
   */
  reloadScenario(raw: unknown, loadTime?: Date): Promise<void>;
  /** The text `npm start` prints. */
  banner: string;
  /** Where the handlers come from: the `functions/` sources, or the bundles directory. */
  handlerSource: { kind: "sources"; dir: string } | { kind: "bundles"; dir: string };
  close(): Promise<void>;
}

/** Stack file's sibling with the functions' environment, for `npm run invoke`. */
export const lambdaEnvFileFor = (stackFile: string) => join(dirname(stackFile), "lambda-env.json");

function readScenario(scenario: string | object): { raw: unknown; file: string | null } {
  if (typeof scenario !== "string") return { raw: scenario, file: null };
  const file = resolve(scenario);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new Error(`cannot read scenario file ${file}`);
  }
  try {
    return { raw: JSON.parse(text), file };
  } catch (err) {
    throw new Error(`scenario file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "EADDRINUSE"
          ? new Error(`port ${port} is in use (another local stack? see .local/stack.json); use --port N`)
          : err,
      );
    };
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      resolvePort((server.address() as AddressInfo).port);
    });
  });
}

/** Bundles every deployed function into `dir/<fn>/index.mjs`, as the CDK stack does. */
async function buildBundles(dir: string): Promise<string> {
  // Loaded only here: esbuild and the CDK function table are not part of a plain `npm start`.
  const [{ bundleFunction }, { FUNCTIONS }] = await Promise.all([
    import("../../infra/bundle.ts"),
    import("../../infra/functions.ts"),
  ]);
  rmSync(dir, { recursive: true, force: true });
  await Promise.all(FUNCTIONS.map(({ name }) => bundleFunction(name, dir)));
  return dir;
}

export async function startLocalStack(opts: LocalStackOptions = {}): Promise<LocalStack> {
  const started = performance.now();
  // The SDK's notice about future Node versions is noise here: the local stack never calls AWS.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const log = opts.quiet ? () => {} : (line: string) => console.log(line);
  const { raw, file: scenarioFile } = readScenario(opts.scenario ?? DEFAULT_SCENARIO);
  const ownWorkDir = opts.workDir === undefined;
  const workDir = opts.workDir ?? mkdtempSync(join(tmpdir(), "runtime-logs-local-"));
  const stackFile = opts.stackFile ?? join(workDir, "stack.json");
  const envFile = lambdaEnvFileFor(stackFile);
  // One stack per state directory: refuse before starting anything.
  assertStackFileFree(stackFile);
  const dataDir = opts.dataDir ? resolve(opts.dataDir) : null;

  // Everything started so far, closed in reverse order on failure or close().
  const closers: (() => Promise<void> | void)[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) {
      try {
        await close();
      } catch (err) {
        console.error("local stack: error while stopping:", err);
      }
    }
  };
  if (ownWorkDir) closers.push(() => rmSync(workDir, { recursive: true, force: true }));

  try {
    const [dynamo, sim] = await Promise.all([
      startDynalite(dataDir ? { dataDir: join(dataDir, "dynamodb") } : {}),
      startKubeSim({ scenario: raw, ...(opts.loadTime ? { loadTime: opts.loadTime } : {}) }),
    ]);
    closers.push(() => dynamo.close());
    closers.push(() => sim.close());
    // The sandbox source: OpenShell gateways on the kube simulator's clock, admin on its simUrl.
    const shell = createStackOpenShell({
      dir: join(workDir, "openshell"),
      nowMs: () => sim.now().getTime(),
    });
    closers.push(() => shell.close());
    sim.sandboxAdmin = (op, body) => shell.admin(op, body);

    const { client, doc } = createDynamo(localDynamoOptions(dynamo.endpoint));
    closers.push(() => client.destroy());
    await ensureTables(client, LOCAL_TABLE_NAMES);

    // Kubeconfigs and registry follow the simulator's scenario (at start, and on reloadScenario).
    let kubeconfigs: Record<string, string> = {};
    let principals: string[] = [];
    const syncRegistry = async () => {
      kubeconfigs = await sim.writeKubeconfigs(join(workDir, "kubeconfigs"));
      await shell.sync(sim.scenario.openshell);
      await loadRegistry(
        { doc, tableName: LOCAL_TABLE_NAMES.registry, replace: true },
        sim.scenario.registry,
        Object.entries(kubeconfigs).map(([id, path]) => localCluster(id, path)),
        Object.entries(shell.connections).map(([id, path]) => localGateway(id, path)),
      );
      principals = grantedPrincipals(sim.scenario.registry);
    };
    await syncRegistry();
    const keys = ensureKeys(join(workDir, "keys"), { keep: dataDir !== null });
    const scenario = sim.scenario;

    const environment = buildLambdaEnvironment({
      dynamodbEndpoint: dynamo.endpoint,
      tables: LOCAL_TABLE_NAMES,
      keys,
      limits: scenario.limits,
    });
    applyEnvironment(environment);

    let ready = false;
    const functionsDir = join(REPO_ROOT, "functions");
    const bundlesDir = opts.bundled ? await buildBundles(join(workDir, "bundles")) : null;
    const handlers = createHandlerLoader(functionsDir, environment, bundlesDir ? { bundlesDir } : {});
    const consoleAssets = createConsoleAssets(join(REPO_ROOT, "console"));
    closers.push(() => consoleAssets.close());
    const server = createApiServer({
      handlers,
      consoleAssets,
      principals: () => principals,
      isReady: () => ready,
      log,
    });
    const port = await listen(server, opts.port ?? 0);
    closers.push(
      () =>
        new Promise<void>((done) => {
          ready = false;
          server.closeAllConnections();
          server.close(() => done());
        }),
    );
    const apiUrl = `http://127.0.0.1:${port}`;
    const simUrl: string = sim.url;

    const info: StackInfo = {
      apiUrl,
      simUrl,
      dynamodbEndpoint: dynamo.endpoint,
      kubeconfigs,
      pid: process.pid,
    };
    const noteOpenShell = () => {
      if (Object.keys(shell.endpoints).length > 0) info.openshell = shell.endpoints;
      else delete info.openshell;
    };
    noteOpenShell();
    // A second stack may have started meanwhile in the same directory: the first to write wins.
    assertStackFileFree(stackFile);
    writeFileAtomic(envFile, `${JSON.stringify({ pid: process.pid, environment }, null, 2)}\n`, 0o600);
    writeStackFile(stackFile, info);
    closers.push(() => {
      removeFileIfOwned(stackFile);
      removeFileIfOwned(envFile);
    });
    ready = true;

    // A scenario replaced through the simulator's admin API (or reloadScenario) replaces everything
    // the stack derived from it: registry, kubeconfigs, limits; the next request is a cold start
    // with the new configuration and empty caches.
    const followScenario = async () => {
      await syncRegistry();
      const next = buildLambdaEnvironment({
        dynamodbEndpoint: dynamo.endpoint,
        tables: LOCAL_TABLE_NAMES,
        keys,
        limits: sim.scenario.limits,
      });
      for (const name of Object.keys(environment)) delete environment[name];
      Object.assign(environment, next);
      writeFileAtomic(envFile, `${JSON.stringify({ pid: process.pid, environment }, null, 2)}\n`, 0o600);
      handlers.reset();
      info.kubeconfigs = kubeconfigs;
      noteOpenShell();
      writeStackFile(stackFile, info);
    };
    sim.onScenarioLoaded = followScenario;

    if (opts.warm) {
      for (const fn of ["status", "logs", "download"] as FunctionName[]) {
        if (handlers.exists(fn)) handlers.load(fn).catch((err: unknown) => log(`${fn}: cannot load: ${err}`));
      }
    }

    const example = firstExample(scenario.registry);
    const banner = renderBanner({
      apiUrl,
      simUrl,
      dynamodbEndpoint: dynamo.endpoint,
      stackFile,
      scenarioFile,
      dataDir,
      kubeconfigs,
      openshell: shell.endpoints,
      example,
      bundlesDir,
      tour: example ? tourOf(scenario, example) : null,
      startupMs: performance.now() - started,
    });
    log(banner);
    let closing: Promise<void> | undefined;
    return {
      apiUrl,
      simUrl,
      sim,
      dynamodbEndpoint: dynamo.endpoint,
      get kubeconfigs() {
        return kubeconfigs;
      },
      openshell: {
        get sim() {
          return shell.sim;
        },
        get endpoints() {
          return shell.endpoints;
        },
        get connections() {
          return shell.connections;
        },
      },
      stackFile,
      workDir,
      environment,
      banner,
      handlerSource: bundlesDir
        ? { kind: "bundles", dir: bundlesDir }
        : { kind: "sources", dir: functionsDir },
      async reloadScenario(next, loadTime) {
        sim.loadScenario(next, loadTime);
        await followScenario();
      },
      close() {
        closing ??= closeAll();
        return closing;
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
