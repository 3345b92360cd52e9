/**
 * The `rawPod` rules of validate.ts as straight code, for the Pods every log poll reads (the list
 * and the re-read): the same acceptance and the same output (declared fields only, unknown ones
 * dropped) as `rawPod.safeParse`, without zod's per-field machinery (docs/quality.md P4). The zod
 * schema stays the definition: the tests check this parser against it on generated Pods.
 */
import { isRfc3339Utc } from "../rfc3339.ts";
import { InvalidClusterData, isDnsLabel, isDnsSubdomain, LIMITS, type RawPod } from "./validate.ts";

type Obj = Record<string, unknown>;

class Invalid {
  constructor(
    readonly path: string,
    readonly message: string,
  ) {}
}

const fail = (path: string, message: string): never => {
  throw new Invalid(path, message);
};

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function object(v: unknown, path: string): Obj {
  return isObject(v) ? v : fail(path, "expected object");
}

function string(v: unknown, path: string, max: number): string {
  if (typeof v !== "string") return fail(path, "expected string");
  return v.length <= max ? v : fail(path, "too long");
}

const UID = /^[A-Za-z0-9-]{1,64}$/;
const dnsLabel = (v: unknown, path: string) => {
  const s = string(v, path, 63);
  return isDnsLabel(s) ? s : fail(path, "not a DNS label");
};
const dnsSubdomain = (v: unknown, path: string) => {
  const s = string(v, path, 253);
  return isDnsSubdomain(s) ? s : fail(path, "not a DNS subdomain");
};
const uid = (v: unknown, path: string) => {
  const s = string(v, path, 64);
  return UID.test(s) ? s : fail(path, "not a UID");
};
const time = (v: unknown, path: string) => {
  const s = string(v, path, 30);
  return isRfc3339Utc(s) ? s : fail(path, "not an RFC 3339 UTC time");
};
const token = (v: unknown, path: string) => string(v, path, LIMITS.rawTokenChars);
const text = (v: unknown, path: string) => string(v, path, LIMITS.rawTextChars);

function integer(v: unknown, path: string, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isInteger(v)) return fail(path, "expected integer");
  return v >= min && v <= max ? v : fail(path, "out of range");
}
const count = (v: unknown, path: string) => integer(v, path, 0, Number.MAX_SAFE_INTEGER);
const int32 = (v: unknown, path: string) => integer(v, path, -(2 ** 31), 2 ** 31 - 1);

function boolean(v: unknown, path: string): boolean {
  return typeof v === "boolean" ? v : fail(path, "expected boolean");
}

function oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T {
  return typeof v === "string" && (values as readonly string[]).includes(v)
    ? (v as T)
    : fail(path, "invalid option");
}

function array<T>(
  v: unknown,
  path: string,
  min: number,
  max: number,
  item: (x: unknown, path: string) => T,
): T[] {
  if (!Array.isArray(v)) return fail(path, "expected array");
  if (v.length < min || v.length > max) fail(path, "wrong length");
  return v.map((x, i) => item(x, `${path}.${i}`));
}

/** Sets `out[key]` when `from` has it: optional fields (`nullish` ones keep a null). */
function optional(
  out: Obj,
  from: Obj,
  key: string,
  path: string,
  parse: (v: unknown, path: string) => unknown,
  nullable = false,
): void {
  if (!(key in from)) return;
  const v = from[key];
  if (v === undefined || (nullable && v === null)) {
    out[key] = v;
    return;
  }
  out[key] = parse(v, `${path}.${key}`);
}

function stringMap(v: unknown, path: string, maxEntries?: number): Record<string, string> {
  const m = object(v, path);
  const out: Record<string, string> = {};
  for (const k of Object.keys(m)) {
    // zod passes over a `__proto__` key (neither checked nor kept); so does this.
    if (k === "__proto__") continue;
    if (k.length > 317) fail(`${path}.${k.slice(0, 64)}`, "key too long");
    const value = m[k];
    if (typeof value !== "string") fail(`${path}.${k.slice(0, 64)}`, "expected string");
    out[k] = value as string;
  }
  if (maxEntries !== undefined && Object.keys(out).length > maxEntries) fail(path, "too many labels");
  return out;
}

function terminated(v: unknown, path: string): Obj {
  const t = object(v, path);
  const out: Obj = { exitCode: int32(t.exitCode, `${path}.exitCode`) };
  optional(out, t, "signal", path, count);
  optional(out, t, "reason", path, token);
  optional(out, t, "message", path, text);
  optional(out, t, "startedAt", path, time, true);
  optional(out, t, "finishedAt", path, time, true);
  return out;
}

function containerState(v: unknown, path: string): Obj {
  const s = object(v, path);
  const out: Obj = {};
  optional(out, s, "waiting", path, (w, p) => {
    const o = object(w, p);
    const r: Obj = {};
    optional(r, o, "reason", p, token);
    optional(r, o, "message", p, text);
    return r;
  });
  optional(out, s, "running", path, (w, p) => {
    const o = object(w, p);
    const r: Obj = {};
    optional(r, o, "startedAt", p, time, true);
    return r;
  });
  optional(out, s, "terminated", path, terminated);
  return out;
}

function containerStatus(v: unknown, path: string): Obj {
  const s = object(v, path);
  const out: Obj = { name: dnsLabel(s.name, `${path}.name`) };
  optional(out, s, "ready", path, boolean);
  optional(out, s, "restartCount", path, count);
  optional(out, s, "state", path, containerState);
  optional(out, s, "lastState", path, containerState);
  return out;
}

function containerSpec(v: unknown, path: string): Obj {
  const s = object(v, path);
  const out: Obj = { name: dnsLabel(s.name, `${path}.name`) };
  optional(out, s, "image", path, (x, p) => string(x, p, LIMITS.rawTokenChars));
  return out;
}

const PHASES = ["Pending", "Running", "Succeeded", "Failed", "Unknown"] as const;
const CONDITION_STATUS = ["True", "False", "Unknown"] as const;

function pod(v: unknown): RawPod {
  const p = object(v, "");
  const m = object(p.metadata, "metadata");
  const metadata: Obj = {
    name: dnsSubdomain(m.name, "metadata.name"),
    namespace: dnsLabel(m.namespace, "metadata.namespace"),
    uid: uid(m.uid, "metadata.uid"),
  };
  optional(metadata, m, "creationTimestamp", "metadata", time, true);
  optional(metadata, m, "deletionTimestamp", "metadata", time, true);
  optional(metadata, m, "labels", "metadata", (x, path) => stringMap(x, path, LIMITS.labels));
  optional(metadata, m, "annotations", "metadata", (x, path) => stringMap(x, path));

  const s = object(p.spec, "spec");
  const spec: Obj = {};
  optional(spec, s, "nodeName", "spec", dnsSubdomain);
  spec.containers = array(s.containers, "spec.containers", 1, LIMITS.containers, containerSpec);
  optional(spec, s, "initContainers", "spec", (x, path) =>
    array(x, path, 0, LIMITS.containers, containerSpec),
  );

  const out: Obj = { metadata, spec };
  optional(out, p, "status", "", (x) => {
    const st = object(x, "status");
    const status: Obj = {};
    optional(status, st, "phase", "status", (y, path) => oneOf(y, path, PHASES));
    optional(status, st, "reason", "status", token);
    optional(status, st, "conditions", "status", (y, path) =>
      array(y, path, 0, 64, (c, cp) => {
        const o = object(c, cp);
        return {
          type: token(o.type, `${cp}.type`),
          status: oneOf(o.status, `${cp}.status`, CONDITION_STATUS),
        };
      }),
    );
    optional(status, st, "containerStatuses", "status", (y, path) =>
      array(y, path, 0, LIMITS.containers, containerStatus),
    );
    optional(status, st, "initContainerStatuses", "status", (y, path) =>
      array(y, path, 0, LIMITS.containers, containerStatus),
    );
    return status;
  });
  return out as unknown as RawPod;
}

/** `parseOrThrow(rawPod, value, what)`, the same outcome: the Pod's declared fields, or InvalidClusterData. */
export function parsePod(value: unknown, what: string): RawPod {
  try {
    return pod(value);
  } catch (e) {
    if (!(e instanceof Invalid)) throw e;
    const path = e.path.replace(/^\./, "");
    throw new InvalidClusterData(`${what}: invalid at ${path || "(root)"}: ${e.message}`);
  }
}
