/**
 * The scenario's optional `openshell` block (the sandbox source): OpenShell gateways for the
 * simulator, each with its sandboxes and their log rings. Strict like the rest of the scenario:
 * an unknown field is an error with its path. Line times resolve to epoch milliseconds
 * (truncated), against the scenario's `now` at load and against the simulator's clock on append.
 */
import { z } from "zod";
import { ID_PATTERN } from "../../lib/api/ids.ts";
import { GRPC_CODES } from "../../lib/openshell/errors.ts";
import { formatPath, type ScenarioIssue } from "./issues.ts";
import { NS_PER_MS, resolveScenarioTime } from "./time.ts";

export const DEFAULT_SANDBOX_CAPACITY = 2000;
const TIME_HINT = "must be RFC 3339, now / now-<decimal>(ms|s|m|h|d), or an integer of epoch milliseconds";
const SANDBOX_KEY = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,126}[A-Za-z0-9])?$/;

export type OpenShellAuth = z.output<typeof authSchema>;
export type SandboxOrigin = z.output<typeof originSchema>;
/** A gRPC status name other than OK. */
export type GrpcFaultCode = Exclude<(typeof GRPC_CODES)[number], "OK">;

export interface ScenarioSandboxLine {
  /** Epoch milliseconds (may be 0 or negative: hostile input for tests). */
  timeMs: number;
  level: string;
  target: string;
  message: string;
  fields: Record<string, string>;
  source: SandboxOrigin;
}

/** A sandbox as parsed, its lines resolved. */
export type ScenarioSandbox = Omit<z.output<typeof sandboxSchema>, "lines"> & {
  lines: ScenarioSandboxLine[];
};

export type OpenShellFaults = z.output<typeof faultsSchema>;

/** A gateway as parsed, its sandboxes resolved. */
export type ScenarioGateway = Omit<ParsedOpenShell[number], "sandboxes"> & { sandboxes: ScenarioSandbox[] };

const authSchema = z.enum(["mtls", "token", "plaintext"]);
const originSchema = z.enum(["sandbox", "gateway"]);

/** A line before its time is resolved: `[time, level, target, message, fields?, source?]`. */
const LINE_HEAD = [
  z.union([z.string(), z.number().int().safe()]),
  z.string().min(1).max(32),
  z.string().max(256),
  z.string().max(64 * 1024),
] as const;
const lineFields = z.record(z.string().max(256), z.string().max(64 * 1024));
const rawLine = z.union([
  z.tuple([...LINE_HEAD]),
  z.tuple([...LINE_HEAD, lineFields]),
  z.tuple([...LINE_HEAD, lineFields, originSchema]),
]);
export type RawSandboxLine = z.infer<typeof rawLine>;
export const rawLinesSchema = z.array(rawLine).max(100_000);

const faultCode = z.enum(GRPC_CODES.filter((c) => c !== "OK") as [GrpcFaultCode, ...GrpcFaultCode[]]);
export const faultsSchema = z.strictObject({
  latencyMs: z.number().int().min(0).max(60_000).default(0),
  code: faultCode.nullable().default(null),
});

const sandboxSchema = z.strictObject({
  name: z.string().regex(SANDBOX_KEY, `must match ${SANDBOX_KEY.source}`),
  id: z.string().regex(SANDBOX_KEY, `must match ${SANDBOX_KEY.source}`),
  capacity: z.number().int().min(1).max(100_000).default(DEFAULT_SANDBOX_CAPACITY),
  lines: rawLinesSchema.default([]),
});

export const openshellSchema = z
  .array(
    z.strictObject({
      id: z.string().regex(ID_PATTERN, `must match ${ID_PATTERN.source}`),
      auth: authSchema.default("mtls"),
      /** Bearer token for `auth: token`; absent: the simulator generates one. */
      token: z
        .string()
        .regex(/^[\x21-\x7e]{8,512}$/, "must be 8–512 visible ASCII characters")
        .optional(),
      faults: faultsSchema.default({ latencyMs: 0, code: null }),
      sandboxes: z.array(sandboxSchema),
    }),
  )
  .default([]);

export type ParsedOpenShell = z.output<typeof openshellSchema>;

/** Resolves one line's time to epoch ms (truncated), or null when it is not in the grammar. */
export function resolveLineTime(time: string | number, nowNs: bigint): number | null {
  if (typeof time === "number") return time;
  const ns = resolveScenarioTime(time, nowNs);
  if (ns === null) return null;
  // Floor division (also for times before 1970).
  const q = ns / NS_PER_MS;
  return Number(ns < 0n && q * NS_PER_MS !== ns ? q - 1n : q);
}

/** Lines in scenario form → resolved lines; issues are reported with `path` + index. */
export function resolveLines(
  raw: readonly RawSandboxLine[],
  nowNs: bigint,
  path: ReadonlyArray<PropertyKey>,
  issues: ScenarioIssue[],
): ScenarioSandboxLine[] {
  const out: ScenarioSandboxLine[] = [];
  raw.forEach((l, i) => {
    const timeMs = resolveLineTime(l[0], nowNs);
    if (timeMs === null) {
      issues.push({ path: formatPath([...path, i, 0]), message: TIME_HINT });
      return;
    }
    out.push({
      timeMs,
      level: l[1],
      target: l[2],
      message: l[3],
      fields: { ...(l[4] ?? {}) },
      source: l[5] ?? "sandbox",
    });
  });
  return out;
}

/** Applies defaults and resolves times; checks that names and IDs are unique where they must be. */
export function finishOpenShell(
  doc: ParsedOpenShell,
  nowNs: bigint,
  issues: ScenarioIssue[],
): ScenarioGateway[] {
  const seen = new Set<string>();
  return doc.map((g, gi) => {
    if (seen.has(g.id))
      issues.push({ path: formatPath(["openshell", gi, "id"]), message: `duplicate gateway "${g.id}"` });
    seen.add(g.id);
    const names = new Set<string>();
    const sandboxes = g.sandboxes.map((s, si): ScenarioSandbox => {
      if (names.has(s.name)) {
        issues.push({
          path: formatPath(["openshell", gi, "sandboxes", si, "name"]),
          message: `duplicate sandbox "${s.name}"`,
        });
      }
      names.add(s.name);
      return {
        name: s.name,
        id: s.id,
        capacity: s.capacity,
        lines: resolveLines(s.lines, nowNs, ["openshell", gi, "sandboxes", si, "lines"], issues),
      };
    });
    if (g.token !== undefined && g.auth !== "token") {
      issues.push({
        path: formatPath(["openshell", gi, "token"]),
        message: 'a token is used only with auth "token"',
      });
    }
    const gateway: ScenarioGateway = { id: g.id, auth: g.auth, faults: g.faults, sandboxes };
    if (g.token !== undefined) gateway.token = g.token;
    return gateway;
  });
}
