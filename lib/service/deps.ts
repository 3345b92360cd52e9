/**
 * The dependencies of a function container, built once from the configuration: one DynamoDB
 * client (with its call counter), the stores, the limiter, the audit sink, the kube driver, the
 * log sources' readers and the keys. Use cases take these as parameters; nothing here is a global.
 */
import type { Logger } from "@aws-lambda-powertools/logger";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { DynamoAuditSink } from "../audit/sink.ts";
import type { ServiceConfig } from "../config.ts";
import { createKeyProvider, type KeyProvider } from "../keys.ts";
import type { KubeDriver } from "../kube/driver.ts";
import { lazyKubeDriver } from "../kube/lazy-driver.ts";
import { GcraLeaseLimiter, type Limiter } from "../limiter/limiter.ts";
import { DynamoLimiterStore } from "../limiter/store.ts";
import { createConnectionStore } from "../openshell/connection.ts";
import { createSandboxDriver, type SandboxDriver } from "../openshell/driver.ts";
import { DynamoRegistryStore, type RegistryStore } from "../registry/store.ts";
import { ContainerSourceReader } from "../routes/sources/container.ts";
import type { SourceReaders } from "../routes/sources/port.ts";
import { SandboxSourceReader } from "../routes/sources/sandbox.ts";
import { createDynamo, type Dynamo, LOCAL_CREDENTIALS, LOCAL_REGION } from "../state/dynamo.ts";
import { createLogger } from "./logger.ts";

export interface ServiceDeps {
  config: ServiceConfig;
  dynamo: Dynamo;
  registry: RegistryStore;
  limiter: Limiter;
  audit: DynamoAuditSink;
  driver: KubeDriver;
  /** The OpenShell driver (sandbox reads, and the probe's `Health` per gateway). */
  sandbox: SandboxDriver;
  /** The log sources' readers, over the drivers above. */
  readers: SourceReaders;
  keys: KeyProvider;
  logger: Logger;
}

export { createLogger };

export function buildServiceDeps(config: ServiceConfig, logger: Logger = createLogger()): ServiceDeps {
  const local = config.dynamodbEndpoint !== undefined;
  const dynamo = createDynamo(
    local ? { endpoint: config.dynamodbEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS } : {},
  );
  let secrets: SecretsManagerClient | undefined;
  const secretsClient = () => {
    secrets ??= new SecretsManagerClient({});
    return secrets;
  };
  const registry = new DynamoRegistryStore({
    doc: dynamo.doc,
    client: dynamo.client,
    tableName: config.tables.registry,
  });
  // The Kubernetes client loads with the first cluster call, not at cold start (docs/quality.md P3).
  const driver = lazyKubeDriver(async () => {
    const [{ createKubeDriver }, { createKubeconfigStore }] = await Promise.all([
      import("../kube/driver.ts"),
      import("../kube/kubeconfig-store.ts"),
    ]);
    const kubeconfigs = createKubeconfigStore({
      allowInsecureClusters: config.allowInsecureClusters,
      secretPrefix: config.kubeconfigSecretPrefix,
      secrets: { send: (command) => secretsClient().send(command) } as Pick<SecretsManagerClient, "send">,
    });
    return createKubeDriver({
      kubeconfigs,
      getCluster: async (clusterId) => (await registry.getCluster(clusterId)) ?? undefined,
    });
  });
  // The gRPC client itself loads on the first sandbox call (lib/openshell/driver.ts).
  const sandbox = createSandboxDriver({
    connections: createConnectionStore({
      secrets: { send: (command) => secretsClient().send(command) } as Pick<SecretsManagerClient, "send">,
    }),
    getGateway: async (gatewayId) => (await registry.getOpenShellGateway(gatewayId)) ?? undefined,
  });
  return {
    config,
    dynamo,
    registry,
    limiter: new GcraLeaseLimiter({
      store: new DynamoLimiterStore({ client: dynamo.client, tableName: config.tables.state }),
      config: config.limits,
    }),
    audit: new DynamoAuditSink({
      doc: dynamo.doc,
      tableName: config.tables.audit,
      retentionDays: config.auditRetentionDays,
    }),
    driver,
    sandbox,
    readers: {
      container: new ContainerSourceReader(driver),
      sandbox: new SandboxSourceReader(sandbox),
    },
    keys: createKeyProvider({
      cursor: config.cursorKey,
      identity: config.identityKey,
      secrets: secretsClient,
    }),
    logger,
  };
}
