/**
 * One cluster's API (docs/kube.md § Endpoints): auth, RBAC denials, discovery, Pods, logs, Events and
 * SelfSubjectAccessReviews. Transport-free: takes a parsed request, returns status + body, so
 * the HTTP server only adds faults, latency and bytes.
 */
import { formatKubeletTime, msToNs, parseRfc3339 } from "../scenario/time.ts";
import {
  apiGroupList,
  apiVersions,
  authorizationGroup,
  authorizationResources,
  coreResources,
  SIM_USER,
  versionInfo,
} from "./discovery.ts";
import { renderLog } from "./kubelet-log.ts";
import { eventJson, type Json, listJson, podJson, status } from "./objects.ts";
import { PagingError, paginate } from "./paging.ts";
import { decodeSsarSpec, isKubeProtobuf } from "./protobuf.ts";
import { type Matcher, parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";
import {
  type Instance,
  rawLogKey,
  type SimCluster,
  type SimContainer,
  type SimEvent,
  type SimNamespace,
  type SimPod,
  type World,
} from "./world.ts";

export interface ApiRequest {
  method: string;
  /** Path below the cluster's base path, e.g. `/api/v1/pods`. */
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: Buffer;
  /** `host:port` the client used, for discovery's server address. */
  host: string;
  userAgent?: string | undefined;
}

export interface ApiResponse {
  status: number;
  contentType: string;
  body: string | Buffer;
}

export type RequestKind = "discovery" | "podLists" | "podGets" | "logReads" | "eventLists" | "ssar" | "other";

class ApiError extends Error {
  readonly code: number;
  readonly details: Record<string, unknown> | undefined;
  constructor(code: number, message: string, details?: Record<string, unknown>) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

const json = (code: number, body: unknown): ApiResponse => ({
  status: code,
  contentType: "application/json",
  body: JSON.stringify(body),
});

export function statusResponse(
  code: number,
  message: string,
  details?: Record<string, unknown>,
): ApiResponse {
  return json(code, status(code, message, details));
}

/** Splits a path into segments; trailing slash ignored, empty segments rejected. */
function segments(path: string): string[] {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed === "" ? [] : trimmed.slice(1).split("/").map(decodeURIComponent);
}

type Route =
  | { kind: "version" | "api" | "apis" | "coreV1" | "authzGroup" | "authzV1" }
  | { kind: "pods"; ns: string | null }
  | { kind: "pod"; ns: string; name: string }
  | { kind: "log"; ns: string; name: string }
  | { kind: "events"; ns: string | null }
  | { kind: "event"; ns: string; name: string }
  | { kind: "namespaces" }
  | { kind: "ssar" };

function route(path: string): Route | null {
  const s = segments(path);
  const p = s.join("/");
  if (p === "version") return { kind: "version" };
  if (p === "api") return { kind: "api" };
  if (p === "apis") return { kind: "apis" };
  if (p === "api/v1") return { kind: "coreV1" };
  if (p === "apis/authorization.k8s.io") return { kind: "authzGroup" };
  if (p === "apis/authorization.k8s.io/v1") return { kind: "authzV1" };
  if (p === "apis/authorization.k8s.io/v1/selfsubjectaccessreviews") return { kind: "ssar" };
  if (p === "api/v1/pods") return { kind: "pods", ns: null };
  if (p === "api/v1/events") return { kind: "events", ns: null };
  if (p === "api/v1/namespaces") return { kind: "namespaces" };
  if (s[0] === "api" && s[1] === "v1" && s[2] === "namespaces" && s[3] !== undefined) {
    const ns = s[3];
    const [resource, name, sub, ...extra] = s.slice(4);
    if (extra.length > 0) return null;
    if (resource === "pods" && name === undefined) return { kind: "pods", ns };
    if (resource === "pods" && name !== undefined && sub === undefined) return { kind: "pod", ns, name };
    if (resource === "pods" && name !== undefined && sub === "log") return { kind: "log", ns, name };
    if (resource === "events" && name === undefined) return { kind: "events", ns };
    if (resource === "events" && name !== undefined && sub === undefined) return { kind: "event", ns, name };
  }
  return null;
}

export function classify(path: string): RequestKind {
  const r = route(path);
  switch (r?.kind) {
    case "version":
    case "api":
    case "apis":
    case "coreV1":
    case "authzGroup":
    case "authzV1":
      return "discovery";
    case "pods":
      return "podLists";
    case "pod":
      return "podGets";
    case "log":
      return "logReads";
    case "events":
      return "eventLists";
    case "ssar":
      return "ssar";
    default:
      return "other";
  }
}

function denied(cluster: SimCluster, namespace: string | null, resource: string): boolean {
  return cluster.deny.some(
    (d) =>
      d.resource === resource && (namespace === null || d.namespace === "*" || d.namespace === namespace),
  );
}

function authorize(
  cluster: SimCluster,
  verb: string,
  resource: string,
  namespace: string | null,
  name?: string,
): void {
  if (!denied(cluster, namespace, resource)) return;
  const [base] = resource.split("/");
  const subject = name !== undefined ? `${base} "${name}"` : base;
  const where = namespace === null ? "at the cluster scope" : `in the namespace "${namespace}"`;
  const details: Record<string, unknown> = { kind: base };
  if (name !== undefined) details.name = name;
  throw new ApiError(
    403,
    `${subject} is forbidden: User "${SIM_USER}" cannot ${verb} resource "${resource}" in API group "" ${where}`,
    details,
  );
}

function first(query: URLSearchParams, name: string): string | null {
  return query.get(name);
}

function intParam(query: URLSearchParams, name: string): number | null {
  const raw = first(query, name);
  if (raw === null || raw === "") return null;
  if (!/^[+-]?\d{1,18}$/.test(raw))
    throw new ApiError(400, `${name}: strconv.ParseInt: parsing "${raw}": invalid syntax`);
  return Number(raw);
}

function boolParam(query: URLSearchParams, name: string): boolean {
  const raw = first(query, name);
  if (raw === null || raw === "") return false;
  if (["1", "t", "T", "true", "TRUE", "True"].includes(raw)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(raw)) return false;
  throw new ApiError(400, `${name}: strconv.ParseBool: parsing "${raw}": invalid syntax`);
}

function listOptions(query: URLSearchParams) {
  const limit = intParam(query, "limit") ?? 0;
  return {
    limit: Math.max(limit, 0),
    continueToken: first(query, "continue") || null,
    labelSelector: first(query, "labelSelector") ?? "",
    fieldSelector: first(query, "fieldSelector") ?? "",
  };
}

const POD_FIELDS: Record<string, (p: SimPod) => string> = {
  "metadata.name": (p) => p.name,
  "metadata.namespace": (p) => p.namespace,
  "spec.nodeName": (p) => p.nodeName ?? "",
  "spec.restartPolicy": () => "Always",
  "spec.schedulerName": () => "default-scheduler",
  "spec.serviceAccountName": () => "default",
  "status.phase": (p) => p.phase,
};

const EVENT_FIELDS: Record<string, (e: SimEvent) => string> = {
  "metadata.name": (e) => e.name,
  "metadata.namespace": (e) => e.namespace,
  "involvedObject.kind": (e) => e.involvedObject.kind,
  "involvedObject.namespace": (e) => e.namespace,
  "involvedObject.name": (e) => e.involvedObject.name,
  "involvedObject.uid": (e) => e.involvedObject.uid,
  "involvedObject.apiVersion": () => "v1",
  "involvedObject.resourceVersion": () => "",
  "involvedObject.fieldPath": (e) => e.involvedObject.fieldPath ?? "",
  reason: (e) => e.reason,
  reportingComponent: () => "",
  source: (e) => e.source.component,
  type: (e) => e.type,
};

function selectors<T>(
  opts: ReturnType<typeof listOptions>,
  fields: Record<string, (item: T) => string>,
  labelsOf: (item: T) => Record<string, string>,
): Matcher<T> {
  try {
    const labels = parseLabelSelector(opts.labelSelector);
    const byField = parseFieldSelector(opts.fieldSelector, fields);
    return (item) => labels(labelsOf(item)) && byField(item);
  } catch (e) {
    if (e instanceof SelectorError) throw new ApiError(400, e.message);
    throw e;
  }
}

function namespacesOf(cluster: SimCluster, ns: string | null) {
  if (ns === null) return [...cluster.namespaces.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  const one = cluster.namespaces.get(ns);
  return one ? [one] : [];
}

function pageOf<T>(
  all: T[],
  key: (item: T) => string,
  opts: ReturnType<typeof listOptions>,
  scope: string,
  rv: number,
) {
  try {
    const page = paginate(all, key, { limit: opts.limit, continueToken: opts.continueToken, scope, rv });
    // The API server only counts the rest when no selector filtered it.
    const countable = opts.labelSelector === "" && opts.fieldSelector === "" && page.continueToken !== null;
    return { ...page, remaining: countable ? page.remaining : null };
  } catch (e) {
    if (e instanceof PagingError) throw new ApiError(400, e.message);
    throw e;
  }
}

/** What a list of one namespaced kind reads: its items, selectable fields, labels and JSON form. */
interface Listed<T extends { namespace: string; name: string }> {
  resource: "pods" | "events";
  kind: "PodList" | "EventList";
  items: (n: SimNamespace) => Iterable<T>;
  fields: Record<string, (item: T) => string>;
  labels: (item: T) => Record<string, string>;
  toJson: (item: T) => Json;
}

const PODS: Listed<SimPod> = {
  resource: "pods",
  kind: "PodList",
  items: (n) => n.pods.values(),
  fields: POD_FIELDS,
  labels: (p) => p.labels,
  toJson: (p) => podJson(p, false),
};

const EVENTS: Listed<SimEvent> = {
  resource: "events",
  kind: "EventList",
  items: (n) => n.events.values(),
  fields: EVENT_FIELDS,
  labels: () => ({}),
  toJson: (e) => eventJson(e, false),
};

/** A list (one namespace, or all of them when `ns` is null): selectors, name order, pages. */
function listOf<T extends { namespace: string; name: string }>(
  listed: Listed<T>,
  cluster: SimCluster,
  ns: string | null,
  query: URLSearchParams,
): ApiResponse {
  authorize(cluster, "list", listed.resource, ns);
  const opts = listOptions(query);
  const match = selectors<T>(opts, listed.fields, listed.labels);
  const key = (item: T) => `${item.namespace}/${item.name}`;
  const all = namespacesOf(cluster, ns)
    .flatMap((n) => [...listed.items(n)])
    .filter(match)
    .sort((a, b) => (key(a) < key(b) ? -1 : 1));
  const page = pageOf(all, key, opts, `${listed.resource}|${ns ?? "*"}`, cluster.resourceVersion);
  return json(
    200,
    listJson(
      listed.kind,
      cluster.resourceVersion,
      page.items.map(listed.toJson),
      page.continueToken,
      page.remaining,
    ),
  );
}

function findPod(cluster: SimCluster, ns: string, name: string): SimPod {
  const pod = cluster.namespaces.get(ns)?.pods.get(name);
  if (!pod) throw new ApiError(404, `pods "${name}" not found`, { name, kind: "pods" });
  return pod;
}

function invalidLogOptions(pod: string, problems: string[]): ApiError {
  return new ApiError(422, `PodLogOptions "${pod}" is invalid: ${problems.join(", ")}`, {
    name: pod,
    kind: "PodLogOptions",
  });
}

function pickContainer(pod: SimPod, name: string | null): SimContainer {
  if (name === null || name === "") {
    const regular = pod.containers.filter((c) => !c.init);
    if (regular.length === 1) return regular[0] as SimContainer;
    if (regular.length === 0) throw new ApiError(400, `pod ${pod.name} does not have a container`);
    const init = pod.containers.filter((c) => c.init);
    let message = `a container name must be specified for pod ${pod.name}, choose one of: [${regular.map((c) => c.name).join(" ")}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.map((c) => c.name).join(" ")}]`;
    throw new ApiError(400, message);
  }
  const found = pod.containers.find((c) => c.name === name);
  if (!found) throw new ApiError(400, `container ${name} is not valid for pod ${pod.name}`);
  return found;
}

/** Which instance the kubelet serves (its validateContainerLogStatus), or its 400 message. */
function pickInstance(pod: SimPod, c: SimContainer, previous: boolean): Instance {
  const lastTerminated = c.lastState !== null && "terminated" in c.lastState;
  if (previous) {
    if (!lastTerminated || c.previous === null) {
      throw new ApiError(400, `previous terminated container "${c.name}" in pod "${pod.name}" not found`);
    }
    return c.previous;
  }
  if ("waiting" in c.state && !lastTerminated && c.current.lines.length === 0) {
    const reason = c.state.waiting.reason;
    const why =
      reason === "ErrImagePull"
        ? "image can't be pulled"
        : reason === "ImagePullBackOff"
          ? "trying and failing to pull image"
          : reason;
    throw new ApiError(400, `container "${c.name}" in pod "${pod.name}" is waiting to start: ${why}`);
  }
  return c.current;
}

function readLog(
  world: World,
  cluster: SimCluster,
  ns: string,
  name: string,
  query: URLSearchParams,
): ApiResponse {
  authorize(cluster, "get", "pods/log", ns, name);
  const tailLines = intParam(query, "tailLines");
  const sinceSeconds = intParam(query, "sinceSeconds");
  const limitBytes = intParam(query, "limitBytes");
  const timestamps = boolParam(query, "timestamps");
  const previous = boolParam(query, "previous");
  const sinceTimeRaw = first(query, "sinceTime");
  let sinceTimeNs: bigint | null = null;
  if (sinceTimeRaw !== null && sinceTimeRaw !== "") {
    sinceTimeNs = parseRfc3339(sinceTimeRaw);
    if (sinceTimeNs === null) {
      throw new ApiError(
        400,
        `sinceTime: parsing time "${sinceTimeRaw}" as "2006-01-02T15:04:05Z07:00": cannot parse`,
      );
    }
  }
  const problems: string[] = [];
  if (tailLines !== null && tailLines < 0)
    problems.push(`tailLines: Invalid value: ${tailLines}: must be greater than or equal to 0`);
  if (sinceSeconds !== null && sinceSeconds < 1)
    problems.push(`sinceSeconds: Invalid value: ${sinceSeconds}: must be greater than 0`);
  if (limitBytes !== null && limitBytes < 1)
    problems.push(`limitBytes: Invalid value: ${limitBytes}: must be greater than 0`);
  if (sinceSeconds !== null && sinceTimeNs !== null)
    problems.push("sinceSeconds: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified");
  if (problems.length > 0) throw invalidLogOptions(name, problems);

  const pod = findPod(cluster, ns, name);
  const container = pickContainer(pod, first(query, "container"));
  // A hostile node: the body as set, whatever the query asked for.
  const raw = cluster.rawLogs.get(rawLogKey(ns, name, container.name));
  if (raw !== undefined) return { status: 200, contentType: "text/plain", body: raw.bytes };
  world.materialize(container);
  const instance = pickInstance(pod, container, previous);
  const since =
    sinceSeconds !== null
      ? formatKubeletTime(world.nowNs() - msToNs(sinceSeconds * 1000))
      : sinceTimeNs !== null
        ? formatKubeletTime(sinceTimeNs)
        : null;
  const body = renderLog(instance.lines, { tailLines, since, limitBytes, timestamps });
  return { status: 200, contentType: "text/plain", body };
}

function selfSubjectAccessReview(cluster: SimCluster, body: Buffer): ApiResponse {
  let review: { spec?: { resourceAttributes?: Record<string, unknown>; nonResourceAttributes?: unknown } };
  try {
    review = isKubeProtobuf(body) ? { spec: decodeSsarSpec(body) } : JSON.parse(body.toString("utf8"));
  } catch {
    throw new ApiError(
      400,
      "the body of the request was in an unknown format - accepted media types include: application/json, application/vnd.kubernetes.protobuf",
    );
  }
  if (
    typeof review !== "object" ||
    review === null ||
    typeof review.spec !== "object" ||
    review.spec === null
  ) {
    throw new ApiError(
      422,
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec: Invalid value: resourceAttributes and nonResourceAttributes cannot both be empty',
    );
  }
  const attrs = review.spec.resourceAttributes;
  let allowed = true;
  if (attrs && typeof attrs === "object") {
    const group = typeof attrs.group === "string" ? attrs.group : "";
    const resource = typeof attrs.resource === "string" ? attrs.resource : "";
    const sub =
      typeof attrs.subresource === "string" && attrs.subresource !== "" ? `/${attrs.subresource}` : "";
    const ns = typeof attrs.namespace === "string" && attrs.namespace !== "" ? attrs.namespace : null;
    if (group === "" && resource !== "") allowed = !denied(cluster, ns, `${resource}${sub}`);
  }
  // Like RBAC: a denial carries no reason (there are no deny rules in real RBAC to cite).
  const statusBody: Record<string, unknown> = { allowed };
  return json(201, {
    kind: "SelfSubjectAccessReview",
    apiVersion: "authorization.k8s.io/v1",
    metadata: { creationTimestamp: null },
    spec: review.spec,
    status: statusBody,
  });
}

function listNamespaces(cluster: SimCluster, world: World): ApiResponse {
  authorize(cluster, "list", "namespaces", null);
  const items = namespacesOf(cluster, null).map((n) => ({
    metadata: {
      name: n.name,
      uid: `ns-${cluster.id}-${n.name}`,
      resourceVersion: "1",
      creationTimestamp: world.scenario.now.replace(/\.\d+Z$/, "Z"),
    },
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  }));
  return json(200, {
    kind: "NamespaceList",
    apiVersion: "v1",
    metadata: { resourceVersion: String(cluster.resourceVersion) },
    items,
  });
}

/**
 * A request must carry the cluster's bearer token; a wrong one is always 401. The one exception:
 * kubectl sends no credentials at all over plain HTTP (client-go attaches them only to TLS
 * connections, kubernetes/kubectl#744), so a credential-less kubectl request is admitted; any
 * other client without a token gets 401.
 */
function authenticated(cluster: SimCluster, req: ApiRequest): boolean {
  if (req.authorization === undefined) return /^kubectl\//.test(req.userAgent ?? "");
  return req.authorization === `Bearer ${cluster.token}`;
}

/** Serves one request to `cluster`. Never throws: failures are Status objects. */
export function handleClusterRequest(world: World, cluster: SimCluster, req: ApiRequest): ApiResponse {
  try {
    if (!authenticated(cluster, req)) return statusResponse(401, "Unauthorized");
    const r = route(req.path);
    if (!r) return statusResponse(404, "the server could not find the requested resource", {});
    const wantMethod = r.kind === "ssar" ? "POST" : "GET";
    if (req.method !== wantMethod) {
      return statusResponse(405, `the server does not allow this method on the requested resource`, {});
    }
    switch (r.kind) {
      case "version":
        return json(200, versionInfo());
      case "api":
        return json(200, apiVersions(req.host));
      case "apis":
        return json(200, apiGroupList());
      case "coreV1":
        return json(200, coreResources());
      case "authzGroup":
        return json(200, authorizationGroup());
      case "authzV1":
        return json(200, authorizationResources());
      case "namespaces":
        return listNamespaces(cluster, world);
      case "pods":
        return listOf(PODS, cluster, r.ns, req.query);
      case "pod":
        authorize(cluster, "get", "pods", r.ns, r.name);
        return json(200, podJson(findPod(cluster, r.ns, r.name), true));
      case "log":
        return readLog(world, cluster, r.ns, r.name, req.query);
      case "events":
        return listOf(EVENTS, cluster, r.ns, req.query);
      case "event": {
        authorize(cluster, "get", "events", r.ns, r.name);
        const e = cluster.namespaces.get(r.ns)?.events.get(r.name);
        if (!e) return statusResponse(404, `events "${r.name}" not found`, { name: r.name, kind: "events" });
        return json(200, eventJson(e, true));
      }
      case "ssar":
        return selfSubjectAccessReview(cluster, req.body);
    }
  } catch (e) {
    if (e instanceof ApiError) return statusResponse(e.code, e.message, e.details);
    return statusResponse(500, "Internal error occurred: the simulator failed to serve the request");
  }
}
