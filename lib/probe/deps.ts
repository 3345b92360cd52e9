/**
 * The probe's dependencies, built once per container on top of the service's (lib/service/deps.ts):
 * the restart and observation stores and one cheap call per table.
 */
import { type DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { DynamoObservationStore, DynamoRestartStore, RestartCache } from "../restarts/index.ts";
import type { ServiceDeps } from "../service/deps.ts";
import { AUDIT_TABLE, REGISTRY_TABLE, STATE_TABLE, type TableDefinition } from "../state/tables.ts";
import type { ProbeDeps, TablePing } from "./probe.ts";

/** A GetItem of a key no item ever has: proves the table answers, reads nothing. */
export function tablePing(
  doc: DynamoDBDocumentClient,
  table: TablePing["table"],
  def: TableDefinition,
  name: string,
): TablePing {
  const key: Record<string, string> = { [def.partitionKey.name]: "PROBE#health" };
  if (def.sortKey) key[def.sortKey.name] = "PROBE#health";
  return {
    table,
    async ping(signal) {
      await doc.send(new GetCommand({ TableName: name, Key: key }), { abortSignal: signal });
    },
  };
}

export function buildProbeDeps(service: ServiceDeps, now: () => number = Date.now): ProbeDeps {
  const { doc } = service.dynamo;
  const { tables } = service.config;
  return {
    registry: service.registry,
    driver: service.driver,
    sandbox: service.sandbox,
    tables: [
      tablePing(doc, "registry", REGISTRY_TABLE, tables.registry),
      tablePing(doc, "state", STATE_TABLE, tables.state),
      tablePing(doc, "audit", AUDIT_TABLE, tables.audit),
    ],
    keys: service.keys,
    restarts: new DynamoRestartStore({
      doc,
      tableName: tables.audit,
      retentionDays: service.config.auditRetentionDays,
      now,
    }),
    observations: new DynamoObservationStore({ doc, tableName: tables.state }),
    log: {
      info: (message, fields) => service.logger.info(message, fields ?? {}),
      warn: (message, fields) => service.logger.warn(message, fields ?? {}),
    },
    now,
    cache: new RestartCache(),
  };
}
