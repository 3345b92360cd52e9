/**
 * The HTTP API: every route of docs/api.md bound to its function, the chosen authorizer on every route
 * but `/health` (the API's default authorizer, so a route added later is protected unless it opts
 * out), stage access logs and default throttling.
 */
import { Stack } from "aws-cdk-lib";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import {
  ApiMapping,
  type CfnStage,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  type HttpRoute,
  type HttpStage,
  type IHttpRouteAuthorizer,
  LogGroupLogDestination,
  SecurityPolicy,
} from "aws-cdk-lib/aws-apigatewayv2";
import { HttpIamAuthorizer, HttpJwtAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { API_ROUTES, type HttpFunctionName } from "../../lib/service/routes.ts";
import type { AuthorizerSettings, DomainSettings } from "../settings.ts";

export type RouteTarget = HttpFunctionName;

export interface RouteThrottle {
  /** Steady requests per second across all callers. */
  rateLimit: number;
  /** Requests admitted at once above the steady rate. */
  burstLimit: number;
}

export interface RouteSpec {
  routeKey: string;
  path: string;
  target: RouteTarget;
  /** `/health` is the only public route. */
  public: boolean;
  throttle: RouteThrottle;
}

/**
 * Per-route throttles, sized from the polling model (docs/surfaces.md § Throttles):
 * - logs: a follower polls every 2 s per source; a merged view (`--source all`) polls up to two
 *   sources, so ~1 request/s per follower. 500 rps carries ~500 merged (1 000 single-source)
 *   followers; at ~150 ms per poll that is ~75 concurrent executions, inside the 100 reserved.
 * - status: descriptions and deployment lists, re-read while a console tab is visible (~every 15 s):
 *   50 rps is ~750 open consoles.
 * - download: each streams up to several MiB for seconds; 5 rps with 10 reserved executions.
 * - health: monitoring checks only.
 */
const THROTTLES = {
  logs: { rateLimit: 500, burstLimit: 1000 },
  status: { rateLimit: 50, burstLimit: 100 },
  download: { rateLimit: 5, burstLimit: 10 },
  health: { rateLimit: 10, burstLimit: 20 },
} as const satisfies Record<RouteTarget, RouteThrottle>;

/** The routes of lib/service/routes.ts (docs/api.md), each with its function's throttle. */
export const ROUTES: readonly RouteSpec[] = API_ROUTES.map((r) => ({
  routeKey: r.routeKey,
  path: r.path,
  target: r.function,
  public: r.public,
  throttle: THROTTLES[r.function],
}));

/** The stage's default, for any route without its own throttle (there is none today). */
export const API_THROTTLE = { burstLimit: 100, rateLimit: 50 } as const;

/**
 * HTTP API context variables only; no path values, query strings or principal IDs, which the audit
 * table records where they matter.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: "$context.requestId",
    requestTime: "$context.requestTime",
    sourceIp: "$context.identity.sourceIp",
    routeKey: "$context.routeKey",
    status: "$context.status",
    protocol: "$context.protocol",
    responseLength: "$context.responseLength",
    responseLatency: "$context.responseLatency",
    integrationLatency: "$context.integrationLatency",
    integrationStatus: "$context.integrationStatus",
    authorizerError: "$context.authorizer.error",
    integrationError: "$context.integrationErrorMessage",
  }),
);

export interface RuntimeLogsApiProps {
  authorizer: AuthorizerSettings;
  /** A custom domain: TLS 1.2, and the default `execute-api` endpoint disabled. */
  domain?: DomainSettings | undefined;
  functions: Record<RouteTarget, IFunction>;
}

export function routeAuthorizer(settings: AuthorizerSettings): IHttpRouteAuthorizer {
  if (settings.kind === "iam") return new HttpIamAuthorizer();
  return new HttpJwtAuthorizer("Jwt", settings.issuer, { jwtAudience: [...settings.audience] });
}

export class RuntimeLogsApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  readonly routes = new Map<string, HttpRoute>();
  readonly domain: DomainName | undefined;
  /** Where clients (and the console's CloudFront) reach the API. */
  readonly url: string;
  /** The host name of that URL. */
  readonly host: string;

  constructor(scope: Construct, id: string, props: RuntimeLogsApiProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, "AccessLogs", { retention: RetentionDays.THREE_MONTHS });
    this.api = new HttpApi(this, "Api", {
      description: "runtime-logs: agent runtime status and logs",
      defaultAuthorizer: routeAuthorizer(props.authorizer),
      createDefaultStage: false,
      // With its own domain the API answers there only: no second, unlisted way in.
      disableExecuteApiEndpoint: props.domain !== undefined,
    });
    this.stage = this.api.addStage("DefaultStage", {
      stageName: "$default",
      autoDeploy: true,
      throttle: API_THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: ACCESS_LOG_FORMAT,
      },
    });
    if (props.domain) {
      this.domain = new DomainName(this, "Domain", {
        domainName: props.domain.domainName,
        certificate: Certificate.fromCertificateArn(this, "Certificate", props.domain.certificateArn),
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      new ApiMapping(this, "Mapping", { api: this.api, domainName: this.domain, stage: this.stage });
      this.host = props.domain.domainName;
      this.url = `https://${props.domain.domainName}/`;
    } else {
      this.domain = undefined;
      this.host = `${this.api.apiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`;
      this.url = this.stage.url;
    }
    const integrations = {
      status: new HttpLambdaIntegration("Status", props.functions.status),
      logs: new HttpLambdaIntegration("Logs", props.functions.logs),
      download: new HttpLambdaIntegration("Download", props.functions.download),
      health: new HttpLambdaIntegration("Health", props.functions.health),
    } satisfies Record<RouteTarget, HttpLambdaIntegration>;
    for (const route of ROUTES) {
      const [added] = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod.GET],
        integration: integrations[route.target],
        ...(route.public ? { authorizer: new HttpNoneAuthorizer() } : {}),
      });
      if (added) this.routes.set(route.path, added);
    }
    // HttpStage sets only the default throttle; per-route limits are the stage's RouteSettings,
    // which name route keys, so the stage waits for the routes.
    for (const route of this.routes.values()) this.stage.node.addDependency(route);
    (this.stage.node.defaultChild as CfnStage).addPropertyOverride(
      "RouteSettings",
      Object.fromEntries(
        ROUTES.map((route) => [
          route.routeKey,
          { ThrottlingRateLimit: route.throttle.rateLimit, ThrottlingBurstLimit: route.throttle.burstLimit },
        ]),
      ),
    );
  }
}
