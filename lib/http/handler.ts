/**
 * The HTTP adapter every API function shares: a middy handler that gives each request a
 * server-generated ID and a deadline, turns failures into the error envelope (fixed messages, no
 * internal text), adds the contract headers, and writes one summary log line per request. The
 * Powertools logger gets the Lambda context (cold start, function name, request and trace IDs).
 */
import type { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { isServiceError, ServiceError } from "../api/errors.ts";
import { redactText } from "../redact/index.ts";
import type { RequestScope } from "../routes/scope.ts";
import { startDeadline, withinDeadline } from "./deadline.ts";
import { errorResult, type HttpResult, newRequestId } from "./response.ts";

export type { RequestScope };

export type RouteHandler<D> = (
  event: APIGatewayProxyEventV2,
  scope: RequestScope,
  deps: D,
) => Promise<HttpResult>;

/**
 * A route as three steps: parse the event into the use case's typed input (401/400 happen here),
 * run the use case, present its result. The principal goes to the summary log line.
 */
export function httpRoute<I extends { principalId?: string }, R, D>(
  parse: (event: APIGatewayProxyEventV2, now: number) => I,
  run: (input: I, scope: RequestScope, deps: D) => Promise<R>,
  present: (result: R, requestId: string) => HttpResult,
): RouteHandler<D> {
  return async (event, scope, deps) => {
    const input = parse(event, scope.now());
    if (input.principalId !== undefined) scope.principalId = input.principalId;
    return present(await run(input, scope, deps), scope.requestId);
  };
}

export interface CallCounters {
  dynamo(): number;
  cluster(): number;
}

export interface HttpHandlerOptions<D> {
  /** Builds the container's dependencies once, on the first request. */
  deps: () => Promise<D>;
  /** The route handler for an event's `routeKey`, or null when the function does not serve it. */
  route: (event: APIGatewayProxyEventV2) => RouteHandler<D> | null;
  logger: Logger;
  counters?: (deps: D) => CallCounters;
  now?: () => number;
}

export function createHttpHandler<D>(options: HttpHandlerOptions<D>) {
  const now = options.now ?? Date.now;
  let deps: Promise<D> | undefined;
  let loaded: D | undefined;
  const loadDeps = () => {
    deps ??= options.deps().then(
      (resolved) => {
        loaded = resolved;
        return resolved;
      },
      (error: unknown) => {
        deps = undefined; // a failed cold start is retried by the next request
        throw error;
      },
    );
    return deps;
  };

  return middy<APIGatewayProxyEventV2, HttpResult, Error, Context>()
    .use(injectLambdaContext(options.logger))
    .handler(async (event, context) => {
      const started = now();
      const scope: RequestScope = {
        requestId: newRequestId(),
        deadline: startDeadline(now, context.getRemainingTimeInMillis?.()),
        now,
        principalId: null,
      };
      let result: HttpResult;
      let code: string | undefined;
      let counted: { dynamo: number; cluster: number } | undefined;
      try {
        const route = options.route(event);
        if (!route) throw new ServiceError("NOT_FOUND");
        const resolved = loaded ?? (await withinDeadline(scope.deadline, loadDeps()));
        const counters = options.counters?.(resolved);
        const before = counters && { dynamo: counters.dynamo(), cluster: counters.cluster() };
        try {
          result = await withinDeadline(scope.deadline, route(event, scope, resolved));
        } finally {
          if (counters && before)
            counted = {
              dynamo: counters.dynamo() - before.dynamo,
              cluster: counters.cluster() - before.cluster,
            };
        }
      } catch (error) {
        const failure = isServiceError(error) ? error : new ServiceError("INTERNAL", { cause: error });
        code = failure.code;
        if (!isServiceError(error) || failure.status >= 500) {
          options.logger.error("request failed", {
            requestId: scope.requestId,
            error: describeError(failure),
          });
        }
        result = errorResult(failure, scope.requestId);
      } finally {
        scope.deadline.dispose();
      }
      options.logger.info("request", {
        requestId: scope.requestId,
        route: event.routeKey,
        principalId: scope.principalId,
        status: result.statusCode,
        ...(code ? { code } : {}),
        durationMs: now() - started,
        ...(counted ? { dynamoCalls: counted.dynamo, clusterCalls: counted.cluster } : {}),
      });
      return result;
    });
}

/**
 * What the structured log may say about a failure: names and codes, and internal messages that the
 * modules below already redacted. Never a stack with request data in it.
 */
function describeError(error: ServiceError): Record<string, unknown> {
  const cause = error.cause;
  return {
    code: error.code,
    internal: error.message === error.code ? undefined : truncate(error.message),
    cause:
      cause instanceof Error
        ? { name: cause.name, message: cause instanceof ServiceError ? cause.code : truncate(cause.message) }
        : undefined,
  };
}

/** Internal text may quote cluster or SDK answers: redact it and keep it short. */
const truncate = (text: string) => redactText(text.length > 300 ? `${text.slice(0, 300)}…` : text);
