/**
 * The view decision for container sources (docs/api.md § Log query, docs/state.md § Audit table), as one pure
 * function of the listed Pods, the query and the verified cursor: which Pod and container (init or
 * regular) to read, with or without `previous`, and whether this poll continues the cursor's view or
 * starts a new, audited one (no cursor, an expired one, another Pod, container or `previous`, the
 * cursor's Pod gone, or a download).
 */
import { ServiceError } from "../../api/errors.ts";
import type { ReadablePod } from "../../kube/types.ts";
import type { CursorState, VerifiedCursor } from "../../runtime-logs/index.ts";
import type { SourceQuery } from "./port.ts";

export const DEFAULT_TAIL_LINES = 200;
export const DOWNLOAD_TAIL_LINES = 1000;

export type ContainerViewQuery = Pick<
  SourceQuery,
  "pod" | "container" | "previous" | "tailLines" | "sinceSeconds" | "sinceTime"
>;

export interface ContainerViewInput {
  /** The role's current Pods, newest first, as the description listed them. */
  pods: readonly ReadablePod[];
  query: ContainerViewQuery;
  cursor: VerifiedCursor | null;
  download: boolean;
}

/** The stream a read targets: the listed Pod (name and UID) and one of its declared containers. */
export interface ContainerTarget {
  pod: string;
  podUid: string;
  container: string;
  /** Whether `container` is the source's main container (a download names the others). */
  main: boolean;
  /** The container's restart count in the listing the decision was made on. */
  restartCount: number;
  previous: boolean;
}

export type ContainerView =
  /** No running Pod: nothing to read and nothing to audit. */
  | { kind: "none"; tailLines: number }
  | {
      kind: "read";
      target: ContainerTarget;
      /** True when this poll starts a new (audited) view. */
      newView: boolean;
      /** The cursor the page continues from (its frontier), or null for a fresh start. */
      carried: CursorState | null;
      /** The query's cursor had expired: the page opens with a `cursor_expired` gap. */
      expired: boolean;
      /** The view's tail: a cursor's own, else the query's, else the default; downloads 1000. */
      tailLines: number;
      /** Only for a fresh start without a carried cursor. */
      sinceSeconds?: number;
      sinceTime?: string;
    };

export function decideContainerView(input: ContainerViewInput): ContainerView {
  const { pods, query, download } = input;
  const verified = input.cursor;
  const cursor = verified?.status === "valid" ? verified.state : null;
  // An expired cursor still says which Pod and instance the user was following.
  const hint = verified?.state ?? null;

  const pod = choosePod(pods, query.pod, hint);
  if (pod === null) {
    return {
      kind: "none",
      tailLines: download ? DOWNLOAD_TAIL_LINES : (query.tailLines ?? DEFAULT_TAIL_LINES),
    };
  }
  // The container asked for must be declared in the chosen Pod; else the cursor's (when it still
  // is), else the main one.
  const declared = (name: string) => pod.containers.find((c) => c.name === name);
  if (query.container !== undefined && !declared(query.container))
    throw new ServiceError("RUNTIME_LOGS_POD_INVALID");
  const onHintPod = hint !== null && hint.pod === pod.name;
  const container = query.container ?? (onHintPod && declared(hint.container) ? hint.container : pod.main);
  const onHintStream = onHintPod && hint.container === container;
  const previous = query.previous ?? (onHintStream ? hint.previous : false);
  const described = declared(container);

  // A view continues only on the same Pod name, container and `previous`. When the cursor's Pod is
  // gone, the new view still carries the old cursor, so the page opens with a `stream_replaced` gap
  // instead of switching Pods silently.
  const podGone = cursor !== null && query.pod === undefined && !pods.some((p) => p.name === cursor.pod);
  const continuing =
    !download &&
    cursor !== null &&
    cursor.pod === pod.name &&
    cursor.container === container &&
    cursor.previous === previous;
  const carried = !download && (continuing || (podGone && cursor?.previous === previous)) ? cursor : null;
  const tailLines = download
    ? DOWNLOAD_TAIL_LINES
    : (carried?.tailLines ?? query.tailLines ?? DEFAULT_TAIL_LINES);

  const view: ContainerView = {
    kind: "read",
    target: {
      pod: pod.name,
      podUid: pod.uid,
      container,
      main: container === pod.main,
      restartCount: described?.restartCount ?? 0,
      previous,
    },
    newView: !continuing,
    carried,
    expired: !download && verified?.status === "expired",
    tailLines,
  };
  if (carried === null && query.sinceTime !== undefined) view.sinceTime = query.sinceTime;
  else if (carried === null && query.sinceSeconds !== undefined) view.sinceSeconds = query.sinceSeconds;
  return view;
}

/**
 * The Pod to read: the one asked for (400 when it is not a current Pod of the source), else the
 * cursor's when it is still there, else the first (newest).
 */
function choosePod(
  pods: readonly ReadablePod[],
  asked: string | undefined,
  hint: CursorState | null,
): ReadablePod | null {
  if (asked !== undefined) {
    const found = pods.find((p) => p.name === asked);
    if (!found) throw new ServiceError("RUNTIME_LOGS_POD_INVALID");
    return found;
  }
  if (hint !== null) {
    const same = pods.find((p) => p.name === hint.pod);
    if (same) return same;
  }
  return pods[0] ?? null;
}
