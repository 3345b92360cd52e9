/**
 * The container source reader (gateway and agent roles): lists the role's Pods once, decides the
 * view on that listing, reads the chosen container of exactly that Pod (name and UID; the driver
 * does not list again) and builds the page with the pure pipeline. Cluster calls per warm poll:
 * list, log read, re-read of the Pod (docs/quality.md P9).
 */
import type { DeploymentRecord, Role, SourceId } from "../../domain.ts";
import type { KubeDriver } from "../../kube/driver.ts";
import {
  type BuiltPage,
  buildLogPage,
  DOWNLOAD_BUDGET_BYTES,
  downloadFileName,
  isIdleRead,
  planLogRead,
  RESUME_TAIL_LINES,
  renderDownload,
  splitRead,
  type VerifiedCursor,
  verifyCursor,
} from "../../runtime-logs/index.ts";
import { type ContainerView, decideContainerView } from "./container-view.ts";
import type { OpenedView, OpenInput, PrepareInput, SourceQuery, SourceReader, SourceResult } from "./port.ts";

export interface ContainerPrepared {
  query: SourceQuery;
  role: Role;
  cursor: VerifiedCursor | null;
}

const isRole = (source: SourceId): source is Role => source === "gateway" || source === "agent";

export class ContainerSourceReader implements SourceReader<ContainerPrepared> {
  constructor(private readonly driver: Pick<KubeDriver, "listReadablePods" | "readLog">) {}

  prepare({ query, binding, cursorKeys, now }: PrepareInput): ContainerPrepared {
    const role = query.source;
    if (!isRole(role)) throw new TypeError("the container reader serves roles only");
    const cursor =
      query.cursor === undefined ? null : verifyCursor(query.cursor, { binding, keys: cursorKeys, now });
    return { query, role, cursor };
  }

  available(deployment: DeploymentRecord, source: SourceId): boolean {
    return isRole(source) && deployment.placement[source] !== undefined;
  }

  async open(input: OpenInput<ContainerPrepared>): Promise<OpenedView> {
    const { query, role, cursor } = input.prepared;
    const pods = await this.driver.listReadablePods(input.deployment, {
      role,
      signal: input.signal,
      deadline: input.deadline,
    });
    const view = decideContainerView({ pods, query, cursor, download: query.download });
    return {
      newView:
        view.kind === "read" && view.newView
          ? {
              pod: view.target.pod,
              container: view.target.container,
              previous: view.target.previous,
              tailLines: view.tailLines,
            }
          : null,
      read: () => this.#read(input, view),
    };
  }

  async #read(input: OpenInput<ContainerPrepared>, view: ContainerView): Promise<SourceResult> {
    const { query, role } = input.prepared;
    const now = input.now();
    const pageInput = {
      binding: input.binding,
      deploymentId: input.deployment.deploymentId,
      requestId: input.requestId,
      namespaceId: input.namespaceId,
      keys: input.keys,
      view: {
        binding: input.binding,
        tailLines: view.tailLines,
        source: query.source,
        ...(query.minLevel ? { minLevel: query.minLevel } : {}),
      },
      ...(query.download ? { maxBytes: DOWNLOAD_BUDGET_BYTES } : {}),
    };
    if (view.kind === "none") {
      const built = buildLogPage({ ...pageInput, now, chunk: null, cursor: null, expired: false });
      return this.#result(input, built, null);
    }

    const { target } = view;
    const plan = planLogRead({
      cursor: view.carried,
      pod: target.pod,
      podUid: target.podUid,
      restartCount: target.restartCount,
      previous: target.previous,
      tailLines: view.tailLines,
      ...(view.sinceSeconds !== undefined ? { sinceSeconds: view.sinceSeconds } : {}),
      ...(view.sinceTime !== undefined ? { sinceTime: view.sinceTime } : {}),
      now,
    });
    // The Pod the description chose, read with the plan's window (the probe's has no time filter).
    const read = (w: { tailLines: number; limitBytes: number; sinceTime?: string; sinceSeconds?: number }) =>
      this.driver.readLog(input.deployment, {
        role,
        pod: target.pod,
        podUid: target.podUid,
        container: target.container,
        restartCount: target.restartCount,
        tailLines: w.tailLines,
        ...(w.sinceTime !== undefined ? { sinceTime: w.sinceTime } : {}),
        ...(w.sinceSeconds !== undefined ? { sinceSeconds: w.sinceSeconds } : {}),
        previous: target.previous,
        limitBytes: w.limitBytes,
        signal: input.signal,
        deadline: input.deadline,
      });
    const chunk = await read(plan);
    input.checkDeadline();
    // Hostile clocks: every idle poll reads the last lines again without sinceTime, to find lines a
    // node clock step back hid (a fourth call, idle polls only). The read is split once for both.
    const split = plan.probe !== undefined ? splitRead(chunk, RESUME_TAIL_LINES) : undefined;
    const probe =
      plan.probe !== undefined && isIdleRead(chunk, view.carried, now, split) ? await read(plan.probe) : null;
    if (probe !== null) input.checkDeadline();
    const built = buildLogPage({
      ...pageInput,
      now: input.now(),
      chunk,
      probe,
      ...(split !== undefined ? { split } : {}),
      cursor: view.carried,
      expired: view.expired,
    });
    return this.#result(input, built, target);
  }

  #result(
    input: OpenInput<ContainerPrepared>,
    built: BuiltPage,
    target: { pod: string; container: string; main: boolean; previous: boolean } | null,
  ): SourceResult {
    if (!input.prepared.query.download) return { kind: "page", body: built.body };
    const fileName = downloadFileName({
      agentId: input.agentId,
      deploymentId: built.page.deploymentId,
      source: input.prepared.query.source,
      pod: target?.pod ?? null,
      container: target && !target.main ? target.container : null,
      previous: target?.previous ?? input.prepared.query.previous ?? false,
    });
    return { kind: "attachment", text: renderDownload({ agentId: input.agentId }, built.page), fileName };
  }
}
