/**
 * The view decision for container sources: examples for each rule of docs/api.md § Log query and
 * docs/state.md § Audit table, and properties over generated listings, queries and cursors.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isServiceError } from "../../../lib/api/errors.ts";
import type { ReadablePod } from "../../../lib/kube/types.ts";
import {
  type ContainerViewQuery,
  DEFAULT_TAIL_LINES,
  DOWNLOAD_TAIL_LINES,
  decideContainerView,
} from "../../../lib/routes/sources/container-view.ts";
import type { CursorState, VerifiedCursor } from "../../../lib/runtime-logs/index.ts";
import { failureOf } from "../../support/failure.ts";

const pod = (name: string, n: number, restartCount = 0): ReadablePod => ({
  name,
  uid: `uid-${n}`,
  main: "gateway",
  containers: [
    { name: "workspace-init", init: true, restartCount: 0 },
    { name: "gateway", init: false, restartCount },
    { name: "sidecar", init: false, restartCount: 0 },
  ],
});

const state = (over: Partial<CursorState> = {}): CursorState => ({
  keyId: "k1",
  issuedAt: 1_000,
  pod: "gw-0",
  podUid: "uid-0",
  container: "gateway",
  restartCount: 0,
  previous: false,
  tailLines: 50,
  lastTime: null,
  count: 0,
  complete: false,
  hashes: [],
  pemOpen: false,
  pemFrontier: null,
  future: [],
  anchor: "",
  lastNewAt: 1_000,
  readAt: 1_000,
  ...over,
});
const valid = (over: Partial<CursorState> = {}): VerifiedCursor => ({ status: "valid", state: state(over) });
const expired = (over: Partial<CursorState> = {}): VerifiedCursor => ({
  status: "expired",
  state: state(over),
});

const PODS = [pod("gw-1", 1, 2), pod("gw-0", 0, 1)];
const decide = (query: ContainerViewQuery, cursor: VerifiedCursor | null = null, download = false) =>
  decideContainerView({ pods: PODS, query, cursor, download });

describe("decideContainerView", () => {
  it("starts a new view on the first (newest) Pod's main container without a cursor", () => {
    const v = decide({});
    expect(v).toMatchObject({
      kind: "read",
      newView: true,
      carried: null,
      expired: false,
      tailLines: DEFAULT_TAIL_LINES,
      target: { pod: "gw-1", podUid: "uid-1", container: "gateway", restartCount: 2, previous: false },
    });
  });

  it("continues the cursor's view on its Pod with its tail and previous, whatever the query's tail", () => {
    const v = decide({ tailLines: 7 }, valid({ previous: true }));
    expect(v).toMatchObject({
      kind: "read",
      newView: false,
      tailLines: 50,
      target: { pod: "gw-0", previous: true },
    });
    if (v.kind === "read") expect(v.carried).toEqual(state({ previous: true }));
  });

  it("starts a new view when previous changes or another Pod is asked for", () => {
    const prev = decide({ previous: true }, valid());
    expect(prev).toMatchObject({ newView: true, carried: null, target: { pod: "gw-0", previous: true } });
    const other = decide({ pod: "gw-1" }, valid());
    expect(other).toMatchObject({ newView: true, carried: null, target: { pod: "gw-1" } });
  });

  it("starts a new view that carries the cursor when its Pod is gone", () => {
    const v = decide({}, valid({ pod: "gw-9", podUid: "uid-9" }));
    expect(v).toMatchObject({ newView: true, target: { pod: "gw-1" }, tailLines: 50 });
    if (v.kind === "read") expect(v.carried?.pod).toBe("gw-9");
  });

  it("an expired cursor starts a new view on its Pod, flagged expired, carrying nothing", () => {
    const v = decide({}, expired({ previous: true }));
    expect(v).toMatchObject({
      newView: true,
      expired: true,
      carried: null,
      target: { pod: "gw-0", previous: true },
    });
  });

  it("a download is always a new view of 1000 lines, never carrying a cursor", () => {
    expect(decide({ tailLines: 3 }, null, true)).toMatchObject({
      newView: true,
      tailLines: DOWNLOAD_TAIL_LINES,
      carried: null,
    });
  });

  it("passes sinceTime or sinceSeconds only to a fresh start", () => {
    expect(decide({ sinceSeconds: 30 })).toMatchObject({ sinceSeconds: 30 });
    expect(decide({ sinceTime: "2026-11-29T11:00:00Z" })).toMatchObject({
      sinceTime: "2026-11-29T11:00:00Z",
    });
    const carried = decide({ sinceSeconds: 30 }, valid());
    expect(carried).not.toHaveProperty("sinceSeconds");
  });

  it("reads an init container when asked, as a new view that a download names", () => {
    expect(decide({ container: "workspace-init" })).toMatchObject({
      newView: true,
      target: { pod: "gw-1", container: "workspace-init", main: false },
    });
    expect(decide({})).toMatchObject({ target: { container: "gateway", main: true } });
  });

  it("keeps the cursor's container; another container is a new view; an unknown one is refused", () => {
    expect(decide({}, valid({ container: "sidecar", previous: true }))).toMatchObject({
      newView: false,
      target: { pod: "gw-0", container: "sidecar", previous: true },
    });
    // `previous` follows the cursor only on its own stream.
    expect(decide({ container: "gateway" }, valid({ container: "sidecar", previous: true }))).toMatchObject({
      newView: true,
      carried: null,
      target: { container: "gateway", previous: false },
    });
    // A container the Pod no longer declares falls back to the main one, as a new view.
    expect(decide({}, valid({ container: "gone" }))).toMatchObject({
      newView: true,
      target: { container: "gateway" },
    });
    expect(failureOf(() => decide({ container: "nope" })).code).toBe("RUNTIME_LOGS_POD_INVALID");
  });

  it("refuses a Pod that is not listed; no Pod at all is nothing to read", () => {
    expect(failureOf(() => decide({ pod: "gw-7" })).code).toBe("RUNTIME_LOGS_POD_INVALID");
    expect(
      decideContainerView({ pods: [], query: { tailLines: 9 }, cursor: valid(), download: false }),
    ).toEqual({
      kind: "none",
      tailLines: 9,
    });
  });
});

const podName = fc.constantFrom("gw-0", "gw-1", "gw-2");
const containerName = fc.constantFrom("workspace-init", "gateway", "sidecar", "gone");
const arbPods = fc.uniqueArray(
  fc
    .record({ name: podName, restartCount: fc.nat(5) })
    .map(({ name, restartCount }) => pod(name, Number(name.slice(3)), restartCount)),
  { selector: (p) => p.name, maxLength: 3 },
);
const arbQuery: fc.Arbitrary<ContainerViewQuery> = fc.record(
  {
    pod: podName,
    container: containerName,
    previous: fc.boolean(),
    tailLines: fc.integer({ min: 1, max: 1000 }),
    sinceSeconds: fc.integer({ min: 1, max: 86_400 }),
  },
  { requiredKeys: [] },
);
const arbCursor: fc.Arbitrary<VerifiedCursor | null> = fc.option(
  fc
    .record({
      status: fc.constantFrom("valid" as const, "expired" as const),
      pod: podName,
      container: containerName,
      previous: fc.boolean(),
      tailLines: fc.integer({ min: 1, max: 1000 }),
    })
    .map(({ status, pod: p, container, previous, tailLines }) => ({
      status,
      state: state({ pod: p, podUid: `uid-${p.slice(3)}`, container, previous, tailLines }),
    })),
);

describe("decideContainerView properties", () => {
  it("reads a listed Pod, and continues a view exactly when the cursor's stream is kept", () => {
    fc.assert(
      fc.property(arbPods, arbQuery, arbCursor, fc.boolean(), (pods, query, cursor, download) => {
        let v: ReturnType<typeof decideContainerView>;
        try {
          v = decideContainerView({ pods, query, cursor, download });
        } catch (e) {
          // Only an unlisted asked-for Pod, or an asked-for container it does not declare, is refused.
          expect(isServiceError(e) && e.code === "RUNTIME_LOGS_POD_INVALID").toBe(true);
          expect(
            (query.pod !== undefined && !pods.some((p) => p.name === query.pod)) ||
              query.container === "gone",
          ).toBe(true);
          return;
        }
        if (v.kind === "none") {
          expect(pods).toHaveLength(0);
          return;
        }
        const chosen = pods.find((p) => p.name === v.target.pod);
        expect(chosen?.uid).toBe(v.target.podUid);
        const c = cursor?.status === "valid" ? cursor.state : null;
        expect(chosen?.containers.some((k) => k.name === v.target.container)).toBe(true);
        expect(v.target.main).toBe(v.target.container === chosen?.main);
        if (query.container !== undefined) expect(v.target.container).toBe(query.container);
        const continues =
          !download &&
          c !== null &&
          c.pod === v.target.pod &&
          c.container === v.target.container &&
          c.previous === v.target.previous;
        expect(v.newView).toBe(!continues);
        if (continues) expect(v.carried).toBe(c);
        if (download) {
          expect(v.carried).toBeNull();
          expect(v.tailLines).toBe(DOWNLOAD_TAIL_LINES);
          expect(v.expired).toBe(false);
        }
        if (query.previous !== undefined) expect(v.target.previous).toBe(query.previous);
        if (query.pod !== undefined) expect(v.target.pod).toBe(query.pod);
        if (v.carried !== null) expect(v.tailLines).toBe(v.carried.tailLines);
        expect(v.expired).toBe(!download && cursor?.status === "expired");
      }),
      { numRuns: 500 },
    );
  });
});
