/**
 * parsePod against its definition, validate.ts's zod `rawPod`: on generated Pods (valid ones, and
 * ones with a field removed, replaced by another JSON value, set to null or with unknown fields),
 * both accept the same Pods and give the same object.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePod } from "../../../lib/kube/pod-parse.ts";
import { InvalidClusterData, rawPod } from "../../../lib/kube/validate.ts";

const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?$/);
const time = fc
  .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) })
  .map((ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`);
const state = fc.record(
  {
    waiting: fc.record({ reason: fc.string(), message: fc.string() }, { requiredKeys: [] }),
    running: fc.record({ startedAt: fc.option(time) }, { requiredKeys: [] }),
    terminated: fc.record(
      {
        exitCode: fc.oneof(
          fc.integer({ min: -5, max: 255 }),
          fc.constantFrom(2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 0.5),
        ),
        signal: fc.integer({ min: -1, max: 15 }),
        reason: fc.string(),
        message: fc.string(),
        startedAt: fc.option(time),
        finishedAt: fc.option(time),
      },
      { requiredKeys: ["exitCode"] },
    ),
  },
  { requiredKeys: [] },
);
const status = fc.record(
  {
    name: label,
    ready: fc.boolean(),
    restartCount: fc.oneof(fc.integer({ min: -1, max: 20 }), fc.constantFrom(2 ** 53 - 1, 2 ** 53, 1.5)),
    state,
    lastState: state,
    image: fc.string(),
  },
  { requiredKeys: ["name"] },
);
const spec = fc.record(
  { name: label, image: fc.string(), ports: fc.array(fc.nat()) },
  { requiredKeys: ["name"] },
);
const validPod = fc.record(
  {
    apiVersion: fc.constant("v1"),
    metadata: fc.record(
      {
        name: label,
        namespace: label,
        uid: fc.uuid(),
        creationTimestamp: fc.option(time),
        deletionTimestamp: fc.option(time, { nil: undefined }),
        labels: fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), { maxKeys: 6 }),
        annotations: fc.dictionary(fc.string({ maxLength: 12 }), fc.string(), { maxKeys: 3 }),
        managedFields: fc.array(fc.object(), { maxLength: 2 }),
      },
      { requiredKeys: ["name", "namespace", "uid"] },
    ),
    spec: fc.record(
      {
        nodeName: label,
        containers: fc.array(spec, { minLength: 1, maxLength: 3 }),
        initContainers: fc.array(spec, { maxLength: 2 }),
        restartPolicy: fc.constant("Always"),
      },
      { requiredKeys: ["containers"] },
    ),
    status: fc.record(
      {
        phase: fc.constantFrom("Pending", "Running", "Succeeded", "Failed", "Unknown", "Bogus"),
        reason: fc.string(),
        conditions: fc.array(
          fc.record({ type: fc.string(), status: fc.constantFrom("True", "False", "Unknown", "Maybe") }),
          { maxLength: 3 },
        ),
        containerStatuses: fc.array(status, { maxLength: 3 }),
        initContainerStatuses: fc.array(status, { maxLength: 2 }),
        podIP: fc.string(),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ["metadata", "spec"] },
);

/** What a mutation puts in a field: any JSON, and the edge values of the numeric and string rules. */
const replacement = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1.5, -0, "", "A", "a".repeat(64), "a".repeat(254)),
  fc.constantFrom("True", "Running", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00+01:00"),
);

type Json = unknown;
/** Every path to a value inside `v`. */
function paths(
  v: Json,
  at: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) paths(x, [...at, i], out);
  } else if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

function mutate(pod: Json, pick: number, kind: number, value: Json): Json {
  const copy = structuredClone(pod) as Record<string, unknown>;
  const all = paths(copy).filter((p) => p.length > 0);
  const path = all[pick % all.length];
  if (!path) return copy;
  let parent: Record<string | number, unknown> = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const key = path[path.length - 1] as string | number;
  if (kind === 0 && !Array.isArray(parent)) delete parent[key];
  else if (kind === 1) parent[key] = null;
  else if (kind === 2) parent[key] = value;
  else if (kind === 3 && typeof parent[key] === "string")
    parent[key] = `${parent[key]}${"x".repeat([40, 200, 1030, 65_600][pick % 4] ?? 0)}`;
  else if (
    kind === 4 &&
    typeof parent[key] === "object" &&
    parent[key] !== null &&
    !Array.isArray(parent[key])
  )
    (parent[key] as Record<string, unknown>).unknownField = value;
  return copy;
}

function outcome(parse: () => unknown): { ok: true; value: string } | { ok: false } {
  try {
    return { ok: true, value: JSON.stringify(parse()) };
  } catch (e) {
    if (e instanceof InvalidClusterData) return { ok: false };
    throw e;
  }
}

const viaZod = (v: unknown) => () => {
  const r = rawPod.safeParse(v);
  if (!r.success) throw new InvalidClusterData("zod");
  return r.data;
};

describe("parsePod", () => {
  it("accepts exactly the Pods rawPod accepts, with the same fields, valid or mutated", () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        validPod,
        fc.array(fc.tuple(fc.nat(), fc.nat(4), replacement), { maxLength: 4 }),
        (base, mutations) => {
          let pod: Json = base;
          for (const [pick, kind, value] of mutations) pod = mutate(pod, pick, kind, value);
          pod = JSON.parse(JSON.stringify(pod));
          const expected = outcome(viaZod(pod));
          const got = outcome(() => parsePod(pod, "pod"));
          expect(got).toEqual(expected);
          if (expected.ok) {
            accepted++;
            expect(parsePod(pod, "pod")).toStrictEqual(viaZod(pod)());
          } else refused++;
        },
      ),
      { numRuns: 1500 },
    );
    // Both halves are exercised.
    expect(accepted).toBeGreaterThan(150);
    expect(refused).toBeGreaterThan(150);
  });

  it("agrees at every bound: each string field at the lengths around each limit, each number at its edges", () => {
    const full = {
      metadata: {
        name: "p",
        namespace: "a",
        uid: "u-1",
        creationTimestamp: "2026-01-01T00:00:00Z",
        labels: { a: "b" },
        annotations: { c: "d" },
      },
      spec: {
        nodeName: "n",
        containers: [{ name: "c", image: "i" }],
        initContainers: [{ name: "i", image: "i" }],
      },
      status: {
        phase: "Running",
        reason: "r",
        conditions: [{ type: "Ready", status: "True" }],
        containerStatuses: [
          {
            name: "c",
            ready: true,
            restartCount: 1,
            state: { waiting: { reason: "r", message: "m" }, running: { startedAt: "2026-01-01T00:00:00Z" } },
            lastState: {
              terminated: {
                exitCode: 1,
                signal: 9,
                reason: "r",
                message: "m",
                startedAt: null,
                finishedAt: null,
              },
            },
          },
        ],
        initContainerStatuses: [{ name: "i", restartCount: 0 }],
      },
    };
    const lengths = [63, 64, 253, 254, 317, 318, 1024, 1025, 65_536, 65_537];
    const numbers = [-1, 0, 0.5, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53 - 1, 2 ** 53];
    let cases = 0;
    for (const path of paths(full)) {
      let parent: Record<string | number, unknown> = full;
      for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
      const key = path[path.length - 1] as string | number;
      const original = parent[key];
      const values =
        typeof original === "string"
          ? lengths.map((n) => "a".repeat(n))
          : typeof original === "number"
            ? numbers
            : [];
      for (const value of values) {
        parent[key] = value;
        const pod = structuredClone(full);
        expect(
          outcome(() => parsePod(pod, "pod")),
          path.join("."),
        ).toEqual(outcome(viaZod(pod)));
        cases++;
      }
      parent[key] = original;
    }
    for (const n of [317, 318]) {
      for (const field of ["labels", "annotations"] as const) {
        const pod = structuredClone(full);
        (pod.metadata as Record<string, unknown>)[field] = { ["k".repeat(n)]: "v" };
        expect(
          outcome(() => parsePod(pod, "pod")),
          `${field} key ${n}`,
        ).toEqual(outcome(viaZod(pod)));
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(200);
  });

  it("passes over a `__proto__` label, kept or checked by neither", () => {
    const pod = JSON.parse(
      '{"metadata":{"name":"p","namespace":"a","uid":"u-1","labels":{"__proto__":"x","a":"b"}},"spec":{"containers":[{"name":"c"}]}}',
    );
    expect(parsePod(pod, "pod")).toStrictEqual(viaZod(pod)());
    expect(Object.keys(parsePod(pod, "pod").metadata.labels ?? {})).toEqual(["a"]);
    const bad = JSON.parse(
      '{"metadata":{"name":"p","namespace":"a","uid":"u-1","labels":{"__proto__":7}},"spec":{"containers":[{"name":"c"}]}}',
    );
    expect(rawPod.safeParse(bad).success).toBe(true);
    expect(parsePod(bad, "pod")).toStrictEqual(viaZod(bad)());
  });

  it("names the path of the first invalid field, never its value", () => {
    const e = (() => {
      try {
        parsePod(
          {
            metadata: { name: "Bad_Name", namespace: "a", uid: "u-1" },
            spec: { containers: [{ name: "c" }] },
          },
          "pods[3]",
        );
      } catch (x) {
        return x as Error;
      }
      return null;
    })();
    expect(e).toBeInstanceOf(InvalidClusterData);
    expect(e?.message).toBe("pods[3]: invalid at metadata.name: not a DNS subdomain");
  });
});
