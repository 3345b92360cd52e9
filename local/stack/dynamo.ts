/**
 * Embedded dynalite (in memory, or LevelDB under a data directory) and the service's tables,
 * created from the shared definitions with `CreateTable` (keys and GSIs only: dynalite has no TTL
 * or PITR calls). Existing tables are kept, so a persisted data directory survives restarts.
 */
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ListTablesCommand,
} from "@aws-sdk/client-dynamodb";
import { createTableInput, TABLES, type TableDefinition, type TableNames } from "../../lib/state/tables.ts";

interface DynaliteOptions {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}
type DynaliteFactory = (options: DynaliteOptions) => Server;
const dynalite = createRequire(import.meta.url)("dynalite") as DynaliteFactory;

/** Physical table names on the local stack. */
export const LOCAL_TABLE_NAMES: TableNames = {
  registry: "runtime-logs-registry",
  state: "runtime-logs-state",
  audit: "runtime-logs-audit",
};

const nameOf = (def: TableDefinition, names: TableNames): string =>
  ({ Registry: names.registry, State: names.state, Audit: names.audit })[def.id];

export interface EmbeddedDynamo {
  endpoint: string;
  close(): Promise<void>;
}

export async function startDynalite(opts: { dataDir?: string } = {}): Promise<EmbeddedDynamo> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const server = dynalite({
    ...(opts.dataDir ? { path: opts.dataDir } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close() {
      closed ??= new Promise<void>((resolve) => {
        // Keep-alive sockets from SDK clients would hold the close open.
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}

/** Creates the missing tables and waits until every one is ACTIVE. */
export async function ensureTables(
  client: DynamoDBClient,
  names: TableNames = LOCAL_TABLE_NAMES,
): Promise<void> {
  const existing = new Set<string>();
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand(start ? { ExclusiveStartTableName: start } : {}));
    for (const n of page.TableNames ?? []) existing.add(n);
    start = page.LastEvaluatedTableName;
  } while (start);
  for (const def of TABLES) {
    const name = nameOf(def, names);
    if (!existing.has(name)) await client.send(new CreateTableCommand(createTableInput(def, name)));
  }
  for (const def of TABLES) {
    const name = nameOf(def, names);
    for (let attempt = 0; ; attempt++) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      if (Table?.TableStatus === "ACTIVE") break;
      if (attempt > 200) throw new Error(`table ${name} did not become ACTIVE`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
