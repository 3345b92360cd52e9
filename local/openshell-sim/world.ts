/**
 * The OpenShell simulator's state: per gateway its auth and faults, per sandbox a ring buffer of
 * log lines (capacity from the scenario; the oldest line is evicted when a new one does not fit).
 * Queries follow the OpenShell logs API: `sources` and `since_ms` filter, then the newest `lines`
 * (0 = 2000) are returned in order with `buffer_total` = lines the ring holds.
 */
import { GRPC_CODES } from "../../lib/openshell/errors.ts";
import {
  faultsSchema,
  type GrpcFaultCode,
  type OpenShellAuth,
  type OpenShellFaults,
  rawLinesSchema,
  resolveLines,
  type ScenarioGateway,
  type ScenarioSandboxLine,
} from "../scenario/openshell.ts";
import { parseStrict, ScenarioError, type ScenarioIssue } from "../scenario/schema.ts";
import { msToNs } from "../scenario/time.ts";

export const DEFAULT_QUERY_LINES = 2000;

/** A failed admin operation: HTTP status and a message naming what was wrong. */
export class SandboxSimError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "SandboxSimError";
  }
}

/** A gRPC failure the server answers with (status code number and a message). */
export class GrpcStatusError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "GrpcStatusError";
  }
}

/** A ring buffer with O(1) append and eviction. */
export class Ring {
  private buf: (ScenarioSandboxLine | undefined)[];
  private start = 0;
  private size = 0;
  constructor(readonly capacity: number) {
    this.buf = new Array(capacity);
  }
  push(line: ScenarioSandboxLine): void {
    if (this.size < this.capacity) {
      this.buf[(this.start + this.size) % this.capacity] = line;
      this.size++;
    } else {
      this.buf[this.start] = line;
      this.start = (this.start + 1) % this.capacity;
    }
  }
  get length(): number {
    return this.size;
  }
  toArray(): ScenarioSandboxLine[] {
    const out: ScenarioSandboxLine[] = [];
    for (let i = 0; i < this.size; i++) out.push(this.buf[(this.start + i) % this.capacity]!);
    return out;
  }
}

export interface SimSandbox {
  name: string;
  id: string;
  ring: Ring;
}

export interface SimGateway {
  id: string;
  auth: OpenShellAuth;
  token: string;
  faults: OpenShellFaults;
  sandboxes: Map<string, SimSandbox>;
}

export interface LogsQuery {
  sandboxId: string;
  lines: number;
  sinceMs: number;
  sources: string[];
}

export interface WireLine extends ScenarioSandboxLine {
  sandboxId: string;
}

export interface AppendInput {
  gateway: string;
  sandbox: string;
  lines: unknown;
}
export interface ReplaceInput {
  gateway: string;
  sandbox: string;
  newId: string;
}
export interface FaultInput {
  gateway: string;
  latencyMs?: number;
  code?: GrpcFaultCode | null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const SANDBOX_ID = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,126}[A-Za-z0-9])?$/;

function onlyKeys(body: unknown, allowed: string[], required: string[], op: string): Record<string, unknown> {
  if (!isObject(body)) throw new SandboxSimError(400, `${op}: the body must be a JSON object`);
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k)) throw new SandboxSimError(400, `${op}: unknown field ${k}`);
  }
  for (const k of required) {
    if (typeof body[k] !== "string" || body[k] === "")
      throw new SandboxSimError(400, `${op}: ${k} is required`);
  }
  return body;
}

export class OpenShellWorld {
  readonly gateways = new Map<string, SimGateway>();

  /** `nowMs` is the simulator's clock (the kube simulator's, so both agree). */
  constructor(
    scenario: readonly ScenarioGateway[],
    readonly nowMs: () => number,
    tokens: (gatewayId: string) => string,
  ) {
    for (const g of scenario) {
      const sandboxes = new Map<string, SimSandbox>();
      for (const s of g.sandboxes) {
        const ring = new Ring(s.capacity);
        for (const l of s.lines) ring.push(l);
        sandboxes.set(s.name, { name: s.name, id: s.id, ring });
      }
      this.gateways.set(g.id, {
        id: g.id,
        auth: g.auth,
        token: g.token ?? tokens(g.id),
        faults: { ...g.faults },
        sandboxes,
      });
    }
  }

  gateway(id: string): SimGateway {
    const g = this.gateways.get(id);
    if (!g) throw new SandboxSimError(404, `no OpenShell gateway "${id}"`);
    return g;
  }

  private sandbox(gatewayId: string, name: string): SimSandbox {
    const s = this.gateway(gatewayId).sandboxes.get(name);
    if (!s) throw new SandboxSimError(404, `no sandbox "${name}" on gateway "${gatewayId}"`);
    return s;
  }

  /** `GetSandboxLogs`: by name or current instance ID; NOT_FOUND otherwise. */
  query(gatewayId: string, q: LogsQuery): { logs: WireLine[]; bufferTotal: number } {
    const g = this.gateway(gatewayId);
    let box = g.sandboxes.get(q.sandboxId);
    if (!box) for (const s of g.sandboxes.values()) if (s.id === q.sandboxId) box = s;
    if (!box) throw new GrpcStatusError(5, "sandbox not found");
    const all = box.ring.toArray();
    const wanted = q.sources.length === 0 ? null : new Set(q.sources);
    const kept = all.filter(
      (l) => (wanted === null || wanted.has(l.source)) && (q.sinceMs <= 0 || l.timeMs >= q.sinceMs),
    );
    const n = q.lines === 0 ? DEFAULT_QUERY_LINES : q.lines;
    const logs = kept.slice(Math.max(0, kept.length - n)).map((l) => ({ ...l, sandboxId: box.id }));
    return { logs, bufferTotal: all.length };
  }

  /** Admin: append lines in scenario form; relative times against the simulator's clock. */
  append(body: unknown): { appended: number; bufferTotal: number } {
    const b = onlyKeys(body, ["gateway", "sandbox", "lines"], ["gateway", "sandbox"], "sandbox/append");
    const box = this.sandbox(b.gateway as string, b.sandbox as string);
    const raw = parseStrict(rawLinesSchema, b.lines, ["lines"]);
    const issues: ScenarioIssue[] = [];
    const lines = resolveLines(raw, msToNs(this.nowMs()), ["lines"], issues);
    if (issues.length > 0) throw new ScenarioError(issues);
    for (const l of lines) box.ring.push(l);
    return { appended: lines.length, bufferTotal: box.ring.length };
  }

  /** Admin: a new instance of the sandbox: empty ring, new ID. */
  replace(body: unknown): { id: string } {
    const b = onlyKeys(
      body,
      ["gateway", "sandbox", "newId"],
      ["gateway", "sandbox", "newId"],
      "sandbox/replace",
    );
    const box = this.sandbox(b.gateway as string, b.sandbox as string);
    const newId = b.newId as string;
    if (!SANDBOX_ID.test(newId)) throw new SandboxSimError(400, "sandbox/replace: newId is malformed");
    box.id = newId;
    box.ring = new Ring(box.ring.capacity);
    return { id: newId };
  }

  /** Admin: latency and/or a status code every call answers with (`code: null` clears it). */
  setFault(body: unknown): OpenShellFaults {
    const b = onlyKeys(body, ["gateway", "latencyMs", "code"], ["gateway"], "sandbox/fault");
    const g = this.gateway(b.gateway as string);
    const parsed = faultsSchema.partial().safeParse({
      ...(b.latencyMs !== undefined ? { latencyMs: b.latencyMs } : {}),
      ...(b.code !== undefined ? { code: b.code } : {}),
    });
    if (!parsed.success) throw new SandboxSimError(400, "sandbox/fault: latencyMs or code is invalid");
    if (parsed.data.latencyMs !== undefined) g.faults.latencyMs = parsed.data.latencyMs;
    if (parsed.data.code !== undefined) g.faults.code = parsed.data.code;
    return { ...g.faults };
  }
}

export const grpcCodeNumber = (name: GrpcFaultCode): number => GRPC_CODES.indexOf(name);
