/**
 * The HTTP API's route table (docs/api.md § Routes) and API Gateway's matching rules: only `GET` is
 * routed, a `{param}` matches exactly one non-empty raw segment, and the segment is URL-decoded
 * into `pathParameters`. Pure: no I/O.
 */
import { API_ROUTES, type HttpFunctionName } from "../../lib/service/routes.ts";

export type { HttpFunctionName };

export interface RouteDefinition {
  /** API Gateway's route key, e.g. `GET /health`. */
  routeKey: string;
  fn: HttpFunctionName;
}

/** Each route key and the function behind it, from the one table (lib/service/routes.ts). */
export const ROUTES: readonly RouteDefinition[] = API_ROUTES.map((r) => ({
  routeKey: r.routeKey,
  fn: r.function,
}));

export interface RouteMatch {
  route: RouteDefinition;
  pathParameters: Record<string, string>;
}

const PARAM = /^\{([A-Za-z][A-Za-z0-9]*)\}$/;

/** Decodes one path segment as API Gateway does; a malformed escape is kept as sent. */
function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function matchTemplate(template: string, rawPath: string): Record<string, string> | null {
  const want = template.split("/");
  const got = rawPath.split("/");
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    const param = PARAM.exec(w);
    if (param) {
      if (g === "") return null;
      params[param[1] as string] = decodeSegment(g);
    } else if (w !== g) {
      return null;
    }
  }
  return params;
}

/** The route a request reaches, or null (API Gateway then answers 404 itself). */
export function matchRoute(method: string, rawPath: string): RouteMatch | null {
  if (method !== "GET") return null;
  for (const route of ROUTES) {
    const template = route.routeKey.slice(route.routeKey.indexOf(" ") + 1);
    const pathParameters = matchTemplate(template, rawPath);
    if (pathParameters) return { route, pathParameters };
  }
  return null;
}
