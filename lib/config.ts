/**
 * Service configuration, parsed once per container from the environment with zod. A bad value
 * fails at cold start with a message naming the variable (never its value: some are secrets' names).
 * The CDK stack sets exactly these variables; the local stack sets them from the scenario.
 */
import { z } from "zod";
import { ENV, readSwitch, SWITCH_PROBLEM, type SwitchName } from "./env.ts";

/** An on/off variable, read (default included) by lib/env.ts's `readSwitch`, as `/health` reads its own. */
const onOff = (name: SwitchName) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const on = readSwitch(name, v);
      if (on !== undefined) return on;
      ctx.addIssue({ code: "custom", message: SWITCH_PROBLEM });
      return z.NEVER;
    });
const positiveInt = z
  .string()
  .regex(/^[1-9][0-9]{0,8}$/, "must be a positive integer")
  .transform(Number);
const positiveNumber = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?$/, "must be a positive number")
  .transform(Number)
  .refine((n) => n > 0, "must be positive");

export { ENV };

const schema = z
  .object({
    [ENV.enabled]: onOff(ENV.enabled),
    [ENV.registryTable]: z.string().min(3),
    [ENV.stateTable]: z.string().min(3),
    [ENV.auditTable]: z.string().min(3),
    [ENV.cursorKeySecret]: z.string().min(1).optional(),
    [ENV.identityKeySecret]: z.string().min(1).optional(),
    [ENV.cursorKeyFile]: z.string().min(1).optional(),
    [ENV.identityKeyFile]: z.string().min(1).optional(),
    [ENV.kubeconfigSecretPrefix]: z.string().default("runtime-logs/clusters/"),
    [ENV.allowInsecureClusters]: onOff(ENV.allowInsecureClusters),
    [ENV.auditRetentionDays]: positiveInt.default(400),
    [ENV.limitBurst]: positiveNumber.default(10),
    [ENV.limitRatePerSecond]: positiveNumber.default(2),
    [ENV.limitDownloadCost]: positiveNumber.default(5),
    [ENV.limitPrincipalInFlight]: positiveInt.default(4),
    [ENV.limitAgentInFlight]: positiveInt.default(16),
    [ENV.limitAgentShards]: positiveInt.default(4),
    [ENV.dynamodbEndpoint]: z.url().optional(),
  })
  .refine((e) => Boolean(e[ENV.cursorKeySecret]) !== Boolean(e[ENV.cursorKeyFile]), {
    message: "exactly one of CURSOR_KEY_SECRET and CURSOR_KEY_FILE must be set",
    path: [ENV.cursorKeySecret],
  })
  .refine((e) => Boolean(e[ENV.identityKeySecret]) !== Boolean(e[ENV.identityKeyFile]), {
    message: "exactly one of IDENTITY_KEY_SECRET and IDENTITY_KEY_FILE must be set",
    path: [ENV.identityKeySecret],
  });

export interface LimiterConfig {
  burst: number;
  ratePerSecond: number;
  downloadCost: number;
  principalInFlight: number;
  agentInFlight: number;
  /** Shard items sharing `agentInFlight` (default 4; never more than `agentInFlight`). */
  agentShards?: number;
}

export type KeySource = { kind: "secret"; secretId: string } | { kind: "file"; path: string };

export interface ServiceConfig {
  enabled: boolean;
  tables: { registry: string; state: string; audit: string };
  cursorKey: KeySource;
  identityKey: KeySource;
  kubeconfigSecretPrefix: string;
  allowInsecureClusters: boolean;
  auditRetentionDays: number;
  limits: LimiterConfig;
  dynamodbEndpoint: string | undefined;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

const keySource = (secretId: string | undefined, path: string | undefined): KeySource =>
  secretId ? { kind: "secret", secretId } : { kind: "file", path: path as string };

export function loadConfig(env: Record<string, string | undefined> = process.env): ServiceConfig {
  const known = Object.fromEntries(
    Object.values(ENV)
      .filter((name) => env[name] !== undefined && env[name] !== "")
      .map((name) => [name, env[name]]),
  );
  const parsed = schema.safeParse(known);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${String(i.path[0] ?? "environment")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  return {
    enabled: e[ENV.enabled],
    tables: { registry: e[ENV.registryTable], state: e[ENV.stateTable], audit: e[ENV.auditTable] },
    cursorKey: keySource(e[ENV.cursorKeySecret], e[ENV.cursorKeyFile]),
    identityKey: keySource(e[ENV.identityKeySecret], e[ENV.identityKeyFile]),
    kubeconfigSecretPrefix: e[ENV.kubeconfigSecretPrefix],
    allowInsecureClusters: e[ENV.allowInsecureClusters],
    auditRetentionDays: e[ENV.auditRetentionDays],
    limits: {
      burst: e[ENV.limitBurst],
      ratePerSecond: e[ENV.limitRatePerSecond],
      downloadCost: e[ENV.limitDownloadCost],
      principalInFlight: e[ENV.limitPrincipalInFlight],
      agentInFlight: e[ENV.limitAgentInFlight],
      agentShards: e[ENV.limitAgentShards],
    },
    dynamodbEndpoint: e[ENV.dynamodbEndpoint],
  };
}
