/**
 * Who may do what: the exact DynamoDB actions each function needs on each table (state.md) and the
 * secrets it reads. The stack grants from these tables and the synth tests check the template
 * against them.
 */
import type { FunctionName } from "./functions.ts";

export type TableKey = "registry" | "state" | "audit";

export interface TableAccess {
  actions: readonly string[];
  /** GSIs the function queries. */
  indexes?: readonly string[];
}

/** Agents, deployments, clusters and grants: point reads and per-Agent queries. */
const REGISTRY_READ = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"] as const;
/**
 * Limiter items: conditional update (the blind take and release), and after a failed condition a
 * read (one item, or an Agent's shards at once) and a version-conditioned put. Never delete: TTL
 * collects idle items.
 */
const STATE_READ_WRITE = [
  "dynamodb:GetItem",
  "dynamodb:BatchGetItem",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
] as const;
/** Append-only audit records (conditional put). */
const AUDIT_APPEND = ["dynamodb:PutItem"] as const;
/** Restart records: append and read the newest. */
const AUDIT_APPEND_QUERY = ["dynamodb:PutItem", "dynamodb:Query"] as const;
/** The probe also pings each table with a GetItem of a key no item has (lib/probe/deps.ts). */
const PROBE_PING = "dynamodb:GetItem";

export const TABLE_ACCESS: Record<FunctionName, Partial<Record<TableKey, TableAccess>>> = {
  // Denials are audited; the runtime description reads (and records) restart records.
  status: {
    registry: { actions: REGISTRY_READ },
    state: { actions: STATE_READ_WRITE },
    audit: { actions: AUDIT_APPEND_QUERY },
  },
  logs: {
    registry: { actions: REGISTRY_READ },
    state: { actions: STATE_READ_WRITE },
    audit: { actions: AUDIT_APPEND },
  },
  download: {
    registry: { actions: REGISTRY_READ },
    state: { actions: STATE_READ_WRITE },
    audit: { actions: AUDIT_APPEND },
  },
  // The public `/health` reads nothing.
  health: {},
  // Reads the Audit table's stream, not the table (infra/constructs/audit-archive.ts grants it).
  "audit-archive": {},
  // Lists running Agents through the sparse `running` GSI, keeps its last observation in State,
  // records restarts.
  "health-probe": {
    registry: { actions: REGISTRY_READ, indexes: ["running"] },
    state: { actions: STATE_READ_WRITE },
    audit: { actions: [...AUDIT_APPEND_QUERY, PROBE_PING] },
  },
};

/** Denied to every function role on the Audit table (and its indexes): audit items are never deleted. */
export const AUDIT_DELETE_ACTIONS = ["dynamodb:DeleteItem", "dynamodb:BatchWriteItem"] as const;

/**
 * The secrets a function reads: the generated keys (both are loaded together by lib/keys.ts), the
 * kubeconfigs under `runtime-logs/clusters/` (functions that call clusters) and the OpenShell
 * connection documents under `runtime-logs/openshell/` (functions that read sandboxes).
 */
export type SecretKey = "cursorKey" | "identityKey" | "kubeconfigs" | "openshell";

const KEYS = ["cursorKey", "identityKey"] as const;

export const SECRET_ACCESS: Record<FunctionName, readonly SecretKey[]> = {
  // Runtime descriptions and deployment lists read clusters; status never reads a sandbox.
  status: [...KEYS, "kubeconfigs"],
  logs: [...KEYS, "kubeconfigs", "openshell"],
  download: [...KEYS, "kubeconfigs", "openshell"],
  health: [],
  "audit-archive": [],
  // Checks every cluster and every sandbox gateway.
  "health-probe": [...KEYS, "kubeconfigs", "openshell"],
};

/** Table actions that write, so need the data key for encryption as well as decryption. */
const TABLE_WRITES = new Set(["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:BatchWriteItem"]);

/**
 * The KMS actions a function needs on the customer-managed key (`cmk`): decrypt to read a table or a
 * secret, encrypt and generate data keys to write a table; none for a function that touches neither.
 */
export function kmsActionsOf(name: FunctionName): string[] {
  const tables = Object.values(TABLE_ACCESS[name]);
  const reads = tables.length > 0 || SECRET_ACCESS[name].length > 0;
  const writes = tables.some((t) => t.actions.some((a) => TABLE_WRITES.has(a)));
  if (!reads && !writes) return [];
  return ["kms:Decrypt", "kms:DescribeKey", ...(writes ? ["kms:Encrypt", "kms:GenerateDataKey"] : [])];
}
