/**
 * Stack settings read from CDK context (`cdk.json`, or `-c key=value` on the command line). Values
 * given on the command line arrive as strings, values from `cdk.json` keep their JSON type, so each
 * reader accepts both. A bad or missing value fails synth with a message naming the context key.
 */
import type { Node } from "constructs";
import { FUNCTIONS } from "../lib/service/routes.ts";

export type AuthorizerSettings =
  | { kind: "iam" }
  | { kind: "jwt"; issuer: string; audience: readonly string[] };

export interface VpcSettings {
  vpcId: string;
  subnetIds: readonly string[];
  /** Route tables of those subnets, for the DynamoDB gateway endpoint (optional; see network.ts). */
  routeTableIds: readonly string[];
  /**
   * TCP ports of the OpenShell gateways besides 443 (context `openshellPorts`): the functions that
   * read sandboxes get egress to them; clusters and AWS endpoints stay on 443.
   */
  openshellPorts: readonly number[];
}

/** Optional limiter overrides (docs/state.md § Limiter); unset ones keep the functions' defaults. */
export interface LimitSettings {
  burst?: number;
  ratePerSecond?: number;
  downloadCost?: number;
  principalInFlight?: number;
  agentInFlight?: number;
  agentShards?: number;
}

/** A custom domain and its ACM certificate. */
export interface DomainSettings {
  domainName: string;
  certificateArn: string;
}

export interface StackSettings {
  runtimeLogsEnabled: boolean;
  authorizer: AuthorizerSettings;
  withConsole: boolean;
  vpc: VpcSettings | undefined;
  limits: LimitSettings;
  /** An existing SNS topic the alarms notify (synth warns loudly without one). */
  alarmTopicArn: string | undefined;
  /**
   * Days audit items live (the table's TTL) and each archived record stays locked in compliance mode
   * (context `auditRetentionDays`, default 400).
   */
  auditRetentionDays: number;
  /**
   * The console's own domain (`consoleDomainName` + `consoleCertificateArn`, an ACM certificate in
   * us-east-1): CloudFront then serves TLS 1.2 (2021 policy) or later only.
   */
  consoleDomain: DomainSettings | undefined;
  /**
   * The API's own domain (`apiDomainName` + `apiCertificateArn`, a regional ACM certificate): TLS 1.2,
   * and the default `execute-api` endpoint is disabled, so the API is reachable by that name only
   * (through the console's CloudFront when `withConsole`).
   */
  apiDomain: DomainSettings | undefined;
  /** A customer-managed KMS key for tables, secrets and the audit archive (context `cmk`, default on). */
  cmk: boolean;
  /** Per-function overrides of the reserved concurrency of infra/functions.ts. */
  reservedConcurrency: Partial<Record<string, number>>;
}

/** The context keys this app reads. */
export const CONTEXT = {
  runtimeLogsEnabled: "runtimeLogsEnabled",
  authorizer: "authorizer",
  jwtIssuer: "jwtIssuer",
  jwtAudience: "jwtAudience",
  withConsole: "withConsole",
  vpcId: "vpcId",
  subnetIds: "subnetIds",
  routeTableIds: "routeTableIds",
  openshellPorts: "openshellPorts",
  limits: "limits",
  alarmTopicArn: "alarmTopicArn",
  reservedConcurrency: "reservedConcurrency",
  cmk: "cmk",
  auditRetentionDays: "auditRetentionDays",
  consoleDomainName: "consoleDomainName",
  consoleCertificateArn: "consoleCertificateArn",
  apiDomainName: "apiDomainName",
  apiCertificateArn: "apiCertificateArn",
} as const;

export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

export class SettingsError extends Error {
  override name = "SettingsError";
}

type Lookup = (key: string) => unknown;

function readBoolean(get: Lookup, key: string, fallback: boolean): boolean {
  const value = get(key);
  if (value === undefined || value === "") return fallback;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw new SettingsError(`Context "${key}" must be true or false.`);
}

function readString(get: Lookup, key: string): string | undefined {
  const value = get(key);
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") throw new SettingsError(`Context "${key}" must be a string.`);
  return value.trim();
}

/** An object, or a string of one in JSON; undefined when unset. `shape` says what it must be. */
function readObject(get: Lookup, key: string, shape: string): Record<string, unknown> | undefined {
  let value = get(key);
  if (value === undefined || value === "") return undefined;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      throw new SettingsError(`Context "${key}" is not a valid JSON object.`);
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SettingsError(`Context "${key}" must be ${shape}.`);
  }
  return value as Record<string, unknown>;
}

/** A list: a JSON array of strings, or a comma-separated string. */
function readList(get: Lookup, key: string): string[] {
  let value = get(key);
  if (value === undefined || value === "") return [];
  if (typeof value === "string" && value.trim().startsWith("[")) {
    try {
      value = JSON.parse(value);
    } catch {
      throw new SettingsError(`Context "${key}" is not a valid JSON array.`);
    }
  }
  const items = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(items) || items.some((item) => typeof item !== "string")) {
    throw new SettingsError(`Context "${key}" must be a list of strings (JSON array or comma-separated).`);
  }
  return items.map((item: string) => item.trim()).filter((item) => item.length > 0);
}

function readAuthorizer(get: Lookup): AuthorizerSettings {
  const kind = readString(get, CONTEXT.authorizer) ?? "iam";
  if (kind === "iam") return { kind };
  if (kind !== "jwt") throw new SettingsError(`Context "authorizer" must be "jwt" or "iam".`);
  const issuer = readString(get, CONTEXT.jwtIssuer);
  const audience = readList(get, CONTEXT.jwtAudience);
  if (!issuer || audience.length === 0) {
    throw new SettingsError(
      `Context "authorizer=jwt" needs "jwtIssuer" (the issuer URL) and "jwtAudience" (one or more audiences).`,
    );
  }
  if (!/^https:\/\/[^\s]+$/.test(issuer))
    throw new SettingsError(`Context "jwtIssuer" must be an https URL.`);
  return { kind, issuer, audience };
}

/** EC2 resource IDs: a prefix and 8 or 17 hex digits. */
const awsId = (prefix: string) => new RegExp(`^${prefix}-([0-9a-f]{8}|[0-9a-f]{17})$`);

function readPorts(get: Lookup, key: string): number[] {
  const raw = get(key);
  const items =
    typeof raw === "number" ? [String(raw)] : Array.isArray(raw) ? raw.map(String) : readList(get, key);
  const ports = items.map((item) => (/^[1-9][0-9]{0,4}$/.test(item) ? Number(item) : Number.NaN));
  if (ports.some((port) => !Number.isInteger(port) || port > 65535)) {
    throw new SettingsError(`Context "${key}" must list TCP ports (1-65535).`);
  }
  return [...new Set(ports)].filter((port) => port !== 443).sort((a, b) => a - b);
}

function readVpc(get: Lookup): VpcSettings | undefined {
  const vpcId = readString(get, CONTEXT.vpcId);
  const subnetIds = readList(get, CONTEXT.subnetIds);
  const routeTableIds = readList(get, CONTEXT.routeTableIds);
  const openshellPorts = readPorts(get, CONTEXT.openshellPorts);
  if (!vpcId) {
    if (subnetIds.length > 0 || routeTableIds.length > 0 || openshellPorts.length > 0) {
      throw new SettingsError(`Context "subnetIds", "routeTableIds" and "openshellPorts" need "vpcId".`);
    }
    return undefined;
  }
  if (!awsId("vpc").test(vpcId))
    throw new SettingsError(`Context "vpcId" must look like vpc-0123456789abcdef0.`);
  if (subnetIds.length === 0) throw new SettingsError(`Context "vpcId" needs "subnetIds" (private subnets).`);
  for (const id of subnetIds) {
    if (!awsId("subnet").test(id)) throw new SettingsError(`Context "subnetIds" has a malformed subnet id.`);
  }
  for (const id of routeTableIds) {
    if (!awsId("rtb").test(id)) throw new SettingsError(`Context "routeTableIds" has a malformed id.`);
  }
  return { vpcId, subnetIds, routeTableIds, openshellPorts };
}

const LIMIT_KEYS = [
  "burst",
  "ratePerSecond",
  "downloadCost",
  "principalInFlight",
  "agentInFlight",
  "agentShards",
] as const;
const INTEGER_LIMITS = new Set(["principalInFlight", "agentInFlight", "agentShards"]);

function readLimits(get: Lookup): LimitSettings {
  const value = readObject(get, CONTEXT.limits, "an object");
  if (value === undefined) return {};
  const limits: LimitSettings = {};
  for (const [key, raw] of Object.entries(value)) {
    const name = LIMIT_KEYS.find((k) => k === key);
    if (!name)
      throw new SettingsError(`Context "limits" has an unknown key (known: ${LIMIT_KEYS.join(", ")}).`);
    const ok = typeof raw === "number" && Number.isFinite(raw) && raw > 0;
    if (!ok || (INTEGER_LIMITS.has(name) && !Number.isInteger(raw))) {
      throw new SettingsError(`Context "limits.${name}" must be a positive number.`);
    }
    limits[name] = raw;
  }
  return limits;
}

const FUNCTION_NAMES: readonly string[] = FUNCTIONS.map((f) => f.name);

function readReservedConcurrency(get: Lookup): Partial<Record<string, number>> {
  const value = readObject(get, CONTEXT.reservedConcurrency, "an object of function name to count");
  if (value === undefined) return {};
  const out: Record<string, number> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!FUNCTION_NAMES.includes(name)) {
      throw new SettingsError(
        `Context "reservedConcurrency" has an unknown function (known: ${FUNCTION_NAMES.join(", ")}).`,
      );
    }
    if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 1) {
      throw new SettingsError(`Context "reservedConcurrency.${name}" must be a positive integer.`);
    }
    out[name] = raw;
  }
  return out;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]{36}$/;

/** A domain name and its certificate: both or neither. */
function readDomain(get: Lookup, nameKey: string, certificateKey: string): DomainSettings | undefined {
  const domainName = readString(get, nameKey)?.toLowerCase();
  const certificateArn = readString(get, certificateKey);
  if (!domainName && !certificateArn) return undefined;
  if (!domainName || !certificateArn) {
    throw new SettingsError(`Context "${nameKey}" and "${certificateKey}" go together.`);
  }
  if (!DOMAIN.test(domainName)) throw new SettingsError(`Context "${nameKey}" must be a DNS name.`);
  if (!CERTIFICATE.test(certificateArn)) {
    throw new SettingsError(`Context "${certificateKey}" must be an ACM certificate ARN.`);
  }
  return { domainName, certificateArn };
}

/** Whole days, at least 1 and at most 100 years (S3 Object Lock's limit is 36 500 days). */
function readRetentionDays(get: Lookup): number {
  const raw = get(CONTEXT.auditRetentionDays);
  if (raw === undefined || raw === "") return DEFAULT_AUDIT_RETENTION_DAYS;
  const days = typeof raw === "number" ? raw : /^[0-9]{1,5}$/.test(String(raw)) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(days) || days < 1 || days > 36_500) {
    throw new SettingsError(`Context "auditRetentionDays" must be a whole number of days (1-36500).`);
  }
  return days;
}

/** Reads every setting from a construct node's context (usually the App's). */
export function readSettings(node: Node): StackSettings {
  return settingsFrom((key) => node.tryGetContext(key));
}

export function settingsFrom(get: Lookup): StackSettings {
  const alarmTopicArn = readString(get, CONTEXT.alarmTopicArn);
  if (alarmTopicArn && !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]+$/.test(alarmTopicArn)) {
    throw new SettingsError(`Context "alarmTopicArn" must be an SNS topic ARN.`);
  }
  const settings = {
    runtimeLogsEnabled: readBoolean(get, CONTEXT.runtimeLogsEnabled, true),
    authorizer: readAuthorizer(get),
    withConsole: readBoolean(get, CONTEXT.withConsole, false),
    vpc: readVpc(get),
    limits: readLimits(get),
    alarmTopicArn,
    reservedConcurrency: readReservedConcurrency(get),
    cmk: readBoolean(get, CONTEXT.cmk, true),
    auditRetentionDays: readRetentionDays(get),
    consoleDomain: readDomain(get, CONTEXT.consoleDomainName, CONTEXT.consoleCertificateArn),
    apiDomain: readDomain(get, CONTEXT.apiDomainName, CONTEXT.apiCertificateArn),
  };
  if (settings.consoleDomain && !settings.withConsole) {
    throw new SettingsError(`Context "consoleDomainName" needs "withConsole".`);
  }
  if (settings.consoleDomain && !settings.consoleDomain.certificateArn.includes(":acm:us-east-1:")) {
    throw new SettingsError(`Context "consoleCertificateArn" must be in us-east-1 (CloudFront's region).`);
  }
  return settings;
}
