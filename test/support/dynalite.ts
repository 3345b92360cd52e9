/**
 * An in-process, in-memory dynalite on an ephemeral loopback port with the service's three tables,
 * created from the one definition in lib/state/tables.ts. One per test file; also used by the
 * local stack and the end-to-end tests.
 */
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { CreateTableCommand } from "@aws-sdk/client-dynamodb";
import { createDynamo, type Dynamo, localDynamoOptions } from "../../lib/state/dynamo.ts";
import {
  AUDIT_TABLE,
  createTableInput,
  REGISTRY_TABLE,
  STATE_TABLE,
  type TableNames,
} from "../../lib/state/tables.ts";

interface DynaliteOptions {
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
  path?: string;
}

const require = createRequire(import.meta.url);
const dynalite = require("dynalite") as (options: DynaliteOptions) => Server;

export interface LocalDynamo extends Dynamo {
  endpoint: string;
  tableNames: TableNames;
  close(): Promise<void>;
}

export interface StartOptions {
  /** A LevelDB directory to persist in; in memory when unset. */
  dataDir?: string;
  /** Table name prefix (the local stack may want recognisable names). */
  prefix?: string;
  /** Bind port; 0 (ephemeral) by default. */
  port?: number;
}

export const DEFAULT_TABLE_NAMES = (prefix = "runtime-logs"): TableNames => ({
  registry: `${prefix}-registry`,
  state: `${prefix}-state`,
  audit: `${prefix}-audit`,
});

export async function startDynalite(options: StartOptions = {}): Promise<LocalDynamo> {
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.dataDir ? { path: options.dataDir } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const dynamo = createDynamo(localDynamoOptions(endpoint));
  const tableNames = DEFAULT_TABLE_NAMES(options.prefix);
  const definitions = [
    [REGISTRY_TABLE, tableNames.registry],
    [STATE_TABLE, tableNames.state],
    [AUDIT_TABLE, tableNames.audit],
  ] as const;
  for (const [def, name] of definitions) {
    try {
      await dynamo.client.send(new CreateTableCommand(createTableInput(def, name)));
    } catch (e) {
      // A persisted data dir already has its tables.
      if ((e as { name?: string }).name !== "ResourceInUseException") throw e;
    }
  }
  dynamo.calls.reset();
  let closed = false;
  return {
    ...dynamo,
    endpoint,
    tableNames,
    async close() {
      if (closed) return;
      closed = true;
      dynamo.client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/** A loopback endpoint nobody listens on: DynamoDB "unreachable". */
export async function closedEndpoint(): Promise<string> {
  const { createServer } = await import("node:net");
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
