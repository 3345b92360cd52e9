/**
 * The probe's access checks on one cluster namespace (docs/kube.md § checkAccess): `GET /version`
 * for reachability and latency, then a SelfSubjectAccessReview per permission the service needs.
 * Every failure is reported in the result, never thrown.
 */
import { ServiceError } from "../api/errors.ts";
import type { ClusterSession } from "./cluster-session.ts";
import type { AccessCheck, AccessReport } from "./types.ts";
import { parseOrThrow, rawAccessReview, rawVersion } from "./validate.ts";

/** What the service does in a namespace: list Pods, read their logs, list Events. */
const NEEDED: ReadonlyArray<Pick<AccessCheck, "verb" | "resource">> = [
  { verb: "list", resource: "pods" },
  { verb: "get", resource: "pods/log" },
  { verb: "list", resource: "events" },
];

export async function checkClusterAccess(
  session: ClusterSession,
  clusterId: string,
  namespace: string,
  now: () => number,
): Promise<AccessReport> {
  const started = now();
  let version: AccessReport["version"];
  try {
    parseOrThrow(
      rawVersion,
      await session.json("get version", (o) => session.version.getCode({}, o)),
      "version",
    );
    version = { ok: true, latencyMs: now() - started };
  } catch (e) {
    const err = e instanceof ServiceError ? e : session.fail(e, "get version");
    version = { ok: false, latencyMs: now() - started, errorCode: err.code };
  }
  const checks = await Promise.all(
    NEEDED.map(async ({ verb, resource }): Promise<AccessCheck> => {
      const [res, subresource] = resource.split("/") as [string, string | undefined];
      try {
        const body = await session.json("create selfsubjectaccessreview", (o) =>
          session.authz.createSelfSubjectAccessReview(
            {
              body: {
                apiVersion: "authorization.k8s.io/v1",
                kind: "SelfSubjectAccessReview",
                spec: {
                  resourceAttributes: {
                    namespace,
                    verb,
                    group: "",
                    resource: res,
                    ...(subresource ? { subresource } : {}),
                  },
                },
              },
            },
            o,
          ),
        );
        const review = parseOrThrow(rawAccessReview, body, "access review");
        return { verb, resource, allowed: review.status.allowed && review.status.denied !== true };
      } catch (e) {
        const err = e instanceof ServiceError ? e : session.fail(e, "access review");
        return { verb, resource, allowed: null, errorCode: err.code };
      }
    }),
  );
  return { clusterId, namespace, version, checks };
}
