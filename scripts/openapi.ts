/**
 * `npm run docs`: writes docs/openapi.json, the HTTP API as an OpenAPI 3.1 document generated from
 * the contract itself: route keys (lib/service/routes.ts), path and query schemas (lib/api/schemas.ts,
 * through zod's JSON Schema output), error codes, statuses and messages (lib/api/errors.ts). A test
 * fails when the committed file differs from what this prints, so the document cannot drift.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { ERROR_CATALOG, type ErrorCode } from "../lib/api/errors.ts";
import {
  agentPathSchema,
  deploymentPathSchema,
  downloadQuerySchema,
  logQuerySchema,
} from "../lib/api/schemas.ts";
import { API_ROUTES, type RouteName } from "../lib/service/routes.ts";

export const OPENAPI_FILE = fileURLToPath(new URL("../docs/openapi.json", import.meta.url));

type Json = Record<string, unknown>;

/** One zod object schema as OpenAPI parameters (`in`: path or query), in the contract's field order. */
function parameters(schema: z.ZodType, where: "path" | "query"): Json[] {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as {
    properties: Record<string, Json>;
    required?: string[];
  };
  return Object.entries(json.properties)
    .filter(([, s]) => !("not" in s)) // z.never(): a parameter this route refuses
    .map(([name, s]) => ({
      name,
      in: where,
      required: where === "path" || (json.required ?? []).includes(name),
      schema: s,
    }));
}

/** Error responses a route can give, by status, each listing its codes and their fixed messages. */
function errorResponses(codes: readonly ErrorCode[]): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: list.map((c) => `\`${c}\`: ${ERROR_CATALOG[c].message}`).join("\n\n"),
          ...(status === 429 || list.includes("RUNTIME_LOGS_BUSY")
            ? { headers: { "Retry-After": { schema: { type: "integer", minimum: 1 } } } }
            : {}),
          content: {
            "application/json": {
              schema: {
                allOf: [{ $ref: "#/components/schemas/ErrorEnvelope" }],
                properties: { error: { properties: { code: { enum: list } } } },
              },
            },
          },
        },
      ]),
  );
}

const READ_ERRORS: ErrorCode[] = [
  "INVALID_REQUEST",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "RUNTIME_LOGS_RATE_LIMITED",
  "NOT_IMPLEMENTED",
  "RUNTIME_LOGS_BUSY",
  "DEPENDENCY_UNAVAILABLE",
  "RUNTIME_LOGS_CLUSTER_RBAC",
  "RUNTIME_LOGS_UNAVAILABLE",
  "RUNTIME_LOGS_TIMEOUT",
  "INTERNAL",
];
const LOG_ERRORS: ErrorCode[] = [
  ...READ_ERRORS,
  "RUNTIME_LOGS_CURSOR_INVALID",
  "RUNTIME_LOGS_POD_INVALID",
  "RUNTIME_LOGS_SOURCE_UNAVAILABLE",
  "RUNTIME_LOGS_AUDIT_UNAVAILABLE",
  "RUNTIME_LOGS_SANDBOX_NOT_FOUND",
];

const envelope = (description: string, dataDoc: string): Json => ({
  description,
  content: {
    "application/json": {
      schema: {
        type: "object",
        required: ["data", "meta"],
        properties: {
          data: { type: "object", description: dataDoc },
          meta: { $ref: "#/components/schemas/Meta" },
        },
      },
    },
  },
});

/** A route of the one table (lib/service/routes.ts). */
const routeOf = (name: RouteName) => API_ROUTES.find((r) => r.name === name)!;

interface Operation {
  operationId: string;
  summary: string;
  parameters?: Json[];
  responses: Json;
}

/** The `GET` of route `name` at its path, with the route's security (none for a public route). */
const operation = (name: RouteName, { operationId, summary, parameters, responses }: Operation): Json => {
  const route = routeOf(name);
  const security = route.public ? [] : [{ bearer: [] }];
  return {
    [route.path]: {
      get: { operationId, summary, security, ...(parameters ? { parameters } : {}), responses },
    },
  };
};

export function buildOpenApi(): Json {
  const agentParams = parameters(agentPathSchema, "path");
  const deploymentParams = parameters(deploymentPathSchema, "path");
  const paths: Json = {
    ...operation("health", {
      operationId: "health",
      summary: "Configuration sanity; never cluster data. No authorization.",
      responses: {
        "200": envelope("The service is configured.", "Configuration checks."),
        ...errorResponses(["INTERNAL"]),
      },
    }),
    ...operation("deployments", {
      operationId: "listDeployments",
      summary: "The Agent's deployments, newest first, the active one marked. Needs `read`.",
      parameters: agentParams,
      responses: {
        "200": envelope(
          "Deployments.",
          "A list of `{deploymentId, revision, createdAt, active}`, newest first (docs/api.md).",
        ),
        ...errorResponses(READ_ERRORS),
      },
    }),
    ...operation("runtime", {
      operationId: "getRuntime",
      summary:
        "Pods, containers, Events, log sources and restart records. Needs `read` and `operate`. No query.",
      parameters: deploymentParams,
      responses: {
        "200": envelope(
          "The runtime description.",
          "`{deploymentId, observedAt, pods, sources, restarts}` (docs/api.md § Runtime description).",
        ),
        ...errorResponses(READ_ERRORS),
      },
    }),
    ...operation("logs", {
      operationId: "readLogs",
      summary:
        "One redacted page of a source's log, with a cursor to resume; `download=true` answers the attachment. Needs `read_logs` and `read`.",
      parameters: [...deploymentParams, ...parameters(logQuerySchema, "query")],
      responses: {
        "200": {
          ...envelope(
            "A log page (or, with download=true, the text/plain attachment).",
            "`{deploymentId, source, stream, observedAt, records, withheld, truncated, cursor}` (docs/api.md § Log page).",
          ),
        },
        ...errorResponses(LOG_ERRORS),
      },
    }),
    ...operation("download", {
      operationId: "downloadLogs",
      summary: "The same records as a page, as a text/plain attachment; always a new, audited view.",
      parameters: [...deploymentParams, ...parameters(downloadQuerySchema, "query")],
      responses: {
        "200": {
          description: "The attachment: a header line, then one line per record (docs/api.md § Download).",
          headers: { "content-disposition": { schema: { type: "string" } } },
          content: { "text/plain; charset=utf-8": { schema: { type: "string" } } },
        },
        ...errorResponses(LOG_ERRORS.filter((c) => c !== "RUNTIME_LOGS_CURSOR_INVALID")),
      },
    }),
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "runtime-logs",
      version: "1",
      description:
        "Authorized, limited, audited, redacted and resumable reads of AI-agent runtimes. Generated by `npm run docs` from lib/api and lib/service/routes.ts; prose in docs/api.md.",
    },
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description:
            "A JWT under the JWT authorizer; `local:<principal>` on the local stack. Under the IAM authorizer requests are signed with SigV4 instead.",
        },
      },
      schemas: {
        Meta: {
          type: "object",
          required: ["requestId"],
          properties: { requestId: { type: "string", pattern: "^req_[0-9a-f-]{36}$" } },
        },
        ErrorEnvelope: {
          type: "object",
          required: ["error", "meta"],
          properties: {
            error: {
              type: "object",
              required: ["code", "message"],
              properties: {
                code: { type: "string", enum: Object.keys(ERROR_CATALOG) },
                message: { type: "string", description: "A fixed sentence per code." },
                details: {
                  type: "array",
                  maxItems: 32,
                  items: {
                    type: "object",
                    required: ["path", "code"],
                    properties: { path: { type: "string" }, code: { type: "string" } },
                  },
                },
              },
            },
            meta: { $ref: "#/components/schemas/Meta" },
          },
        },
      },
    },
  };
}

export const renderOpenApi = (): string => `${JSON.stringify(buildOpenApi(), null, 2)}\n`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(OPENAPI_FILE, renderOpenApi());
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
}
