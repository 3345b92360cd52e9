/**
 * KubeDriver (docs/kube.md): runtime description, log reads and access checks against the clusters of
 * a deployment's placement, through client-node with one signal per call and strict validation of
 * everything the clusters return.
 */
import { ServiceError } from "../api/errors.ts";
import { ID_PATTERN } from "../api/ids.ts";
import { mapLimited } from "../concurrency.ts";
import {
  type ClusterRecord,
  type DeploymentRecord,
  LOG_READ_LIMIT_BYTES,
  type LogChunk,
  type Plane,
  type Role,
  type RolePlacement,
} from "../domain.ts";
import { checkClusterAccess } from "./access.ts";
import { ClusterSession, MAX_JSON_BYTES, statusMessage } from "./cluster-session.ts";
import {
  CONTAINER_RETENTION,
  currentPods,
  declaredContainers,
  hintsFor,
  type KeyedEvent,
  labelSelector,
  labelsFor,
  type PodSelector,
  SANDBOX_RETENTION,
  toObservation,
  toReadablePod,
  toRuntimeEvents,
  toRuntimePod,
  toSourcePod,
  validatePods,
} from "./describe.ts";
import { ClusterHttpError, PodGoneError } from "./errors.ts";
import { listPodEvents } from "./events.ts";
import type { KubeconfigStore } from "./kubeconfig-store.ts";
import { buildLogQuery, classifyLogResponse, type PodLogQuery } from "./log-read.ts";
import { parsePod } from "./pod-parse.ts";
import type {
  AccessReport,
  CallOptions,
  PodObservation,
  ReadablePod,
  RuntimeDescription,
  RuntimeObservation,
  RuntimePod,
  RuntimeSource,
} from "./types.ts";
import {
  InvalidClusterData,
  isDnsLabel,
  isDnsSubdomain,
  isUid,
  LIMITS,
  parseOrThrow,
  type RawPod,
  rawPodList,
} from "./validate.ts";

export const CALL_TIMEOUT_MS = 5_000;
const ROLES: readonly Role[] = ["gateway", "agent"];

export type ClusterLookup = (
  clusterId: string,
) => Promise<Pick<ClusterRecord, "clusterId" | "kubeconfigRef" | "allowStaticCredentials"> | undefined>;

export interface KubeDriverOptions {
  kubeconfigs: KubeconfigStore;
  getCluster: ClusterLookup;
  now?: () => number;
  /** Per-call timeout (default 5 s); tests shorten it. */
  callTimeoutMs?: number;
  /** Parallel Event lists per role (default 4). */
  eventConcurrency?: number;
}

export interface DescribeOptions extends CallOptions {
  /** Roles to describe (default: every role of the placement). */
  roles?: Role[];
  events: boolean;
}

export interface ListPodsOptions extends CallOptions {
  role: Role;
}

/**
 * One log read of a Pod the caller has just listed (name **and** UID, and a container declared in
 * it): the driver does not list again (docs/quality.md P9: list, read, re-read per poll).
 */
export interface ReadLogOptions extends CallOptions {
  role: Role;
  pod: string;
  podUid: string;
  container: string;
  /**
   * The container's restart count in the caller's listing, so a restart between that listing and
   * the re-read after the log read shows as a replacement. Callers that do not resume a stream may
   * leave it out: the re-read's count is reported then.
   */
  restartCount?: number;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: string;
  previous: boolean;
  limitBytes?: number;
}

export interface KubeDriver {
  describeRuntime(deployment: DeploymentRecord, options: DescribeOptions): Promise<RuntimeDescription>;
  observeRuntime(deployment: DeploymentRecord, options: DescribeOptions): Promise<RuntimeObservation>;
  /** The current Pods of one role, for a log read: one list call, no Events, nothing redacted. */
  listReadablePods(deployment: DeploymentRecord, options: ListPodsOptions): Promise<ReadablePod[]>;
  readLog(deployment: DeploymentRecord, options: ReadLogOptions): Promise<LogChunk>;
  checkAccess(clusterId: string, namespace: string, options: CallOptions): Promise<AccessReport>;
  /** Cluster HTTP calls made by this driver since it was built. */
  readonly clusterCalls: number;
}

interface RoleResult {
  role: Role;
  placement: RolePlacement;
  pods: RawPod[];
  events: Map<string, KeyedEvent[]>;
}

export class ClientNodeKubeDriver implements KubeDriver {
  readonly #now: () => number;
  readonly #callTimeoutMs: number;
  readonly #eventConcurrency: number;
  #calls = 0;

  constructor(private readonly options: KubeDriverOptions) {
    this.#now = options.now ?? Date.now;
    this.#callTimeoutMs = options.callTimeoutMs ?? CALL_TIMEOUT_MS;
    this.#eventConcurrency = options.eventConcurrency ?? 4;
  }

  get clusterCalls(): number {
    return this.#calls;
  }

  async #session(clusterId: string, call: CallOptions): Promise<ClusterSession> {
    let kc: Awaited<ReturnType<KubeconfigStore["get"]>>;
    try {
      const cluster = await this.options.getCluster(clusterId);
      if (!cluster)
        throw new ServiceError("RUNTIME_LOGS_UNAVAILABLE", {
          internal: `cluster ${clusterId}: not registered`,
        });
      kc = await this.options.kubeconfigs.get(clusterId, cluster.kubeconfigRef, {
        allowStaticCredentials: cluster.allowStaticCredentials === true,
      });
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      throw new ServiceError("RUNTIME_LOGS_UNAVAILABLE", { internal: `cluster ${clusterId}: lookup failed` });
    }
    return new ClusterSession(kc, {
      clusterId,
      signal: call.signal,
      deadline: call.deadline,
      now: this.#now,
      callTimeoutMs: this.#callTimeoutMs,
      onCall: () => {
        this.#calls++;
        if (call.stats) call.stats.clusterCalls++;
      },
    });
  }

  #selector(deployment: DeploymentRecord, role: Role, placement: RolePlacement): PodSelector {
    if (
      !ID_PATTERN.test(deployment.agentId) ||
      !ID_PATTERN.test(deployment.deploymentId) ||
      !isDnsLabel(placement.namespace)
    ) {
      throw new ServiceError("RUNTIME_LOGS_UNAVAILABLE", {
        internal: "deployment record has malformed identifiers",
      });
    }
    return {
      namespace: placement.namespace,
      agentId: deployment.agentId,
      deploymentId: deployment.deploymentId,
      role,
    };
  }

  /** Lists a role's Pods: one page of at most 16, validated; a list that needs continuation is refused. */
  /**
   * A JSON GET through the raw transport: the body is parsed once, by us, and validated by the
   * caller (the typed client would parse it and build its model objects first, on every poll).
   * Answers `null` for a 404 when `missing` allows it.
   */
  async #getJson(session: ClusterSession, operation: string, path: string): Promise<unknown>;
  async #getJson(
    session: ClusterSession,
    operation: string,
    path: string,
    missing: "null",
  ): Promise<unknown | null>;
  async #getJson(session: ClusterSession, operation: string, path: string, missing?: "null") {
    const res = await session.rawGet(operation, path, MAX_JSON_BYTES);
    try {
      if (res.status === 404 && missing === "null") return null;
      if (res.status < 200 || res.status > 299)
        throw new ClusterHttpError(res.status, statusMessage(res.body));
      // A body cut at the cap is not JSON: refused like any malformed answer.
      if (res.cut) throw new InvalidClusterData("body over the size cap");
      try {
        return JSON.parse(res.body.toString("utf8")) as unknown;
      } catch {
        throw new InvalidClusterData("body is not JSON");
      }
    } catch (e) {
      throw session.fail(e, operation);
    }
  }

  async #listPods(session: ClusterSession, selector: PodSelector): Promise<RawPod[]> {
    const query = new URLSearchParams({
      labelSelector: labelSelector(selector),
      limit: String(LIMITS.podsListed),
    });
    const body = await this.#getJson(
      session,
      "list pods",
      `/api/v1/namespaces/${encodeURIComponent(selector.namespace)}/pods?${query}`,
    );
    try {
      const list = parseOrThrow(rawPodList, body, "pod list");
      if (list.metadata?.continue) throw new InvalidClusterData("pod list needs continuation");
      return validatePods(list.items, selector);
    } catch (e) {
      throw session.fail(e, "list pods");
    }
  }

  async #describeRole(
    deployment: DeploymentRecord,
    role: Role,
    placement: RolePlacement,
    options: DescribeOptions,
  ): Promise<RoleResult> {
    const selector = this.#selector(deployment, role, placement);
    const session = await this.#session(placement.clusterId, options);
    const pods = currentPods(await this.#listPods(session, selector));
    const events = new Map<string, KeyedEvent[]>();
    if (options.events) {
      const lists = await mapLimited(pods, this.#eventConcurrency, (p) =>
        listPodEvents(session, placement.namespace, p, { now: this.#now, budgetMs: this.#callTimeoutMs }),
      );
      for (const [i, p] of pods.entries()) events.set(p.metadata.uid, lists[i] ?? []);
    }
    return { role, placement, pods, events };
  }

  async observeRuntime(deployment: DeploymentRecord, options: DescribeOptions): Promise<RuntimeObservation> {
    const roles = ROLES.filter(
      (r) => deployment.placement[r] && (!options.roles || options.roles.includes(r)),
    );
    const results = await Promise.all(
      roles.map((r) => this.#describeRole(deployment, r, deployment.placement[r] as RolePlacement, options)),
    );
    const pods: RuntimePod[] = [];
    const observations: PodObservation[] = [];
    const sources: RuntimeSource[] = [];
    try {
      for (const { role, placement, pods: raw, events } of results) {
        const plane: Plane = placement.plane;
        for (const p of raw) {
          const declared = new Set(declaredContainers(p).map((c) => c.name));
          pods.push(
            toRuntimePod(
              role,
              plane,
              p,
              toRuntimeEvents(events.get(p.metadata.uid) ?? [], declared, hintsFor(p)),
            ),
          );
          observations.push(toObservation(role, plane, placement.clusterId, p));
        }
        const sourcePods = raw.map(toSourcePod);
        sources.push({
          id: role,
          kind: "container",
          pods: sourcePods,
          available: sourcePods.length > 0,
          ...(sourcePods.length === 0 ? { unavailableCode: "NO_POD" as const } : {}),
          retention: CONTAINER_RETENTION,
        });
      }
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      throw new ServiceError("RUNTIME_LOGS_UNAVAILABLE", {
        internal: `runtime description invalid: ${e instanceof Error ? e.message : "invalid"}`,
      });
    }
    // The sandbox source is listed from the registry alone (no gRPC call on the status route):
    // available when the deployment names a sandbox, else NOT_CONFIGURED (docs/api.md). A
    // description of chosen roles only lists the sandbox when it is configured.
    if (deployment.sandbox !== undefined || !options.roles)
      sources.push({
        id: "sandbox",
        kind: "sandbox",
        pods: [],
        available: deployment.sandbox !== undefined,
        ...(deployment.sandbox === undefined ? { unavailableCode: "NOT_CONFIGURED" as const } : {}),
        retention: SANDBOX_RETENTION,
      });
    return {
      description: {
        deploymentId: deployment.deploymentId,
        observedAt: new Date(this.#now()).toISOString(),
        pods,
        sources,
      },
      observations,
    };
  }

  async describeRuntime(deployment: DeploymentRecord, options: DescribeOptions): Promise<RuntimeDescription> {
    return (await this.observeRuntime(deployment, options)).description;
  }

  async listReadablePods(deployment: DeploymentRecord, options: ListPodsOptions): Promise<ReadablePod[]> {
    const placement = deployment.placement[options.role];
    if (!placement) throw new ServiceError("RUNTIME_LOGS_SOURCE_UNAVAILABLE");
    const selector = this.#selector(deployment, options.role, placement);
    const session = await this.#session(placement.clusterId, options);
    const pods = currentPods(await this.#listPods(session, selector));
    try {
      return pods.map(toReadablePod);
    } catch (e) {
      throw session.fail(e, "list pods");
    }
  }

  async readLog(deployment: DeploymentRecord, options: ReadLogOptions): Promise<LogChunk> {
    const placement = deployment.placement[options.role];
    if (!placement) throw new ServiceError("RUNTIME_LOGS_SOURCE_UNAVAILABLE");
    if (!isDnsSubdomain(options.pod) || !isUid(options.podUid) || !isDnsLabel(options.container)) {
      throw new ServiceError("RUNTIME_LOGS_POD_INVALID");
    }
    const limitBytes = options.limitBytes ?? LOG_READ_LIMIT_BYTES;
    const query: PodLogQuery = {
      container: options.container,
      previous: options.previous,
      limitBytes,
      ...(options.tailLines !== undefined ? { tailLines: options.tailLines } : {}),
      ...(options.sinceSeconds !== undefined ? { sinceSeconds: options.sinceSeconds } : {}),
      ...(options.sinceTime !== undefined ? { sinceTime: options.sinceTime } : {}),
    };
    let path: string;
    try {
      path = buildLogQuery(placement.namespace, options.pod, query);
    } catch (e) {
      throw new ServiceError("INVALID_REQUEST", { internal: `log query: ${(e as Error).message}` });
    }
    const selector = this.#selector(deployment, options.role, placement);
    const session = await this.#session(placement.clusterId, options);

    // Logs first, then the Pod: a stale status can never hide output, and a replacement or a
    // restart during the read shows in `observedAfter`.
    const response = await session.rawGet("read log", path, limitBytes);
    let outcome: ReturnType<typeof classifyLogResponse>;
    try {
      outcome = classifyLogResponse(response, query, options.pod, limitBytes);
    } catch (e) {
      throw session.fail(e, "read log");
    }
    if (outcome.kind === "gone")
      throw new PodGoneError(`cluster ${placement.clusterId}: pod gone during the log read`);
    const observedAfter = await this.#reread(
      session,
      placement.namespace,
      options.pod,
      options.container,
      selector,
    );
    return {
      text: outcome.text,
      truncated: outcome.truncated,
      limitBytes,
      pod: options.pod,
      podUid: options.podUid,
      container: options.container,
      restartCount: options.restartCount ?? observedAfter?.restartCount ?? 0,
      previous: options.previous,
      observedAfter,
    };
  }

  /** The Pod after the read: its UID and the container's restart count, or null when it is gone. */
  async #reread(
    session: ClusterSession,
    namespace: string,
    name: string,
    container: string,
    selector: PodSelector,
  ): Promise<LogChunk["observedAfter"]> {
    const body = await this.#getJson(
      session,
      "read pod",
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`,
      "null",
    );
    if (body === null) return null;
    try {
      const pod = parsePod(body, "pod");
      if (pod.metadata.namespace !== namespace || pod.metadata.name !== name) {
        throw new InvalidClusterData("pod read returned another object");
      }
      // Same name, other deployment or role (a StatefulSet's next revision): our Pod is gone.
      const expected = labelsFor(selector);
      if (Object.entries(expected).some(([k, v]) => pod.metadata.labels?.[k] !== v)) return null;
      if (pod.metadata.deletionTimestamp) return null;
      const status = declaredContainers(pod).find((c) => c.name === container)?.status;
      return { podUid: pod.metadata.uid, restartCount: status?.restartCount ?? 0 };
    } catch (e) {
      throw session.fail(e, "read pod");
    }
  }

  async checkAccess(clusterId: string, namespace: string, options: CallOptions): Promise<AccessReport> {
    if (!isDnsLabel(namespace))
      throw new ServiceError("RUNTIME_LOGS_UNAVAILABLE", { internal: "bad namespace" });
    return checkClusterAccess(await this.#session(clusterId, options), clusterId, namespace, this.#now);
  }
}

export const createKubeDriver = (options: KubeDriverOptions): KubeDriver => new ClientNodeKubeDriver(options);
