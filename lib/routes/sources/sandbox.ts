/**
 * The sandbox source reader (OpenShell): no Pod, no container, no `previous` (400
 * RUNTIME_LOGS_POD_INVALID), available when the deployment names a sandbox. A view continues while
 * its cursor is valid; no cursor, an expired one or a download start a new, audited view. One
 * `GetSandboxLogs` call per poll, then the sandbox pipeline.
 */
import { ServiceError } from "../../api/errors.ts";
import type { DeploymentRecord, SourceId } from "../../domain.ts";
import type { SandboxDriver } from "../../openshell/driver.ts";
import {
  buildSandboxPage,
  DOWNLOAD_BUDGET_BYTES,
  downloadFileName,
  planSandboxRead,
  renderSandboxDownload,
  type SandboxCursorState,
  type VerifiedSandboxCursor,
  verifySandboxCursor,
} from "../../runtime-logs/index.ts";
import { DEFAULT_TAIL_LINES, DOWNLOAD_TAIL_LINES } from "./container-view.ts";
import type { OpenedView, OpenInput, PrepareInput, SourceQuery, SourceReader, SourceResult } from "./port.ts";

export interface SandboxPrepared {
  query: SourceQuery;
  cursor: VerifiedSandboxCursor | null;
}

export class SandboxSourceReader implements SourceReader<SandboxPrepared> {
  constructor(private readonly driver: Pick<SandboxDriver, "readLogs">) {}

  prepare({ query, binding, cursorKeys, now }: PrepareInput): SandboxPrepared {
    if (query.pod !== undefined || query.container !== undefined || query.previous === true) {
      throw new ServiceError("RUNTIME_LOGS_POD_INVALID");
    }
    const cursor =
      query.cursor === undefined
        ? null
        : verifySandboxCursor(query.cursor, { binding, keys: cursorKeys, now });
    return { query, cursor };
  }

  available(deployment: DeploymentRecord, source: SourceId): boolean {
    return source === "sandbox" && deployment.sandbox !== undefined;
  }

  async open(input: OpenInput<SandboxPrepared>): Promise<OpenedView> {
    const { query, cursor } = input.prepared;
    const carried = !query.download && cursor?.status === "valid" ? cursor.state : null;
    const tailLines = query.download
      ? DOWNLOAD_TAIL_LINES
      : (carried?.tailLines ?? query.tailLines ?? DEFAULT_TAIL_LINES);
    return {
      newView: carried === null ? { previous: false, tailLines } : null,
      read: () => this.#read(input, carried, tailLines),
    };
  }

  async #read(
    input: OpenInput<SandboxPrepared>,
    carried: SandboxCursorState | null,
    tailLines: number,
  ): Promise<SourceResult> {
    const { query, cursor } = input.prepared;
    const sandbox = input.deployment.sandbox;
    if (!sandbox) throw new ServiceError("RUNTIME_LOGS_SOURCE_UNAVAILABLE");
    const sinceMs =
      carried !== null
        ? undefined
        : query.sinceTime !== undefined
          ? Date.parse(query.sinceTime)
          : query.sinceSeconds !== undefined
            ? input.now() - query.sinceSeconds * 1000
            : undefined;
    const plan = planSandboxRead({
      cursor: carried,
      tailLines,
      ...(sinceMs !== undefined ? { sinceMs } : {}),
    });
    const chunk = await this.driver.readLogs(sandbox, {
      lines: plan.lines,
      sinceMs: plan.sinceMs,
      signal: input.signal,
      deadline: input.deadline,
    });
    input.checkDeadline();
    const built = buildSandboxPage({
      chunk,
      cursor: carried,
      expired: !query.download && cursor?.status === "expired",
      view: { binding: input.binding, tailLines, ...(query.minLevel ? { minLevel: query.minLevel } : {}) },
      deploymentId: input.deployment.deploymentId,
      requestId: input.requestId,
      now: input.now(),
      keys: input.keys,
      namespaceId: input.namespaceId,
      ...(query.download ? { maxBytes: DOWNLOAD_BUDGET_BYTES } : {}),
    });
    if (!query.download) return { kind: "page", body: built.body };
    return {
      kind: "attachment",
      text: renderSandboxDownload({ agentId: input.agentId }, built.page),
      fileName: downloadFileName({
        agentId: input.agentId,
        deploymentId: input.deployment.deploymentId,
        source: "sandbox",
      }),
    };
  }
}
