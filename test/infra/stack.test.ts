/**
 * The default stack (IAM authorizer, feature on, no VPC), synthesized once: tables, functions,
 * grants, routes, schedule, alarms, outputs, and cdk-nag's AWS Solutions checks.
 */
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { SECRET_ACCESS, TABLE_ACCESS, type TableKey } from "../../infra/access.ts";
import { THRESHOLDS } from "../../infra/constructs/alarms.ts";
import { API_THROTTLE, ROUTES } from "../../infra/constructs/http-api.ts";
import { FUNCTIONS, type FunctionName } from "../../infra/functions.ts";
import { acknowledgements } from "../../infra/nag.ts";
import { ENV } from "../../lib/config.ts";
import { METRIC_NAMESPACE } from "../../lib/probe/report.ts";
import { API_ROUTES } from "../../lib/service/routes.ts";
import {
  AUDIT_TABLE,
  REGISTRY_TABLE,
  STATE_TABLE,
  TABLES,
  type TableDefinition,
} from "../../lib/state/tables.ts";
import { FUNCTION_TIMEOUT_MS as LOCAL_TIMEOUT_MS } from "../../local/stack/lambda-context.ts";
import { ROUTES as LOCAL_ROUTES, matchRoute } from "../../local/stack/routes.ts";
import { buildOpenApi } from "../../scripts/openapi.ts";
import { actionsOf, policyStatements, roleStatements, type Statement } from "./iam.ts";
import { resources, type Synthesized, synth, unacknowledged } from "./synth.ts";

let s: Synthesized;
const logicalIds = {} as Record<FunctionName | TableKey, string>;

beforeAll(() => {
  s = synth();
  const id = (c: { node: { defaultChild?: unknown } }) => s.stack.getLogicalId(c.node.defaultChild as never);
  for (const [name, fn] of Object.entries(s.stack.functions)) logicalIds[name as FunctionName] = id(fn.fn);
  logicalIds.registry = id(s.stack.tables.registry);
  logicalIds.state = id(s.stack.tables.state);
  logicalIds.audit = id(s.stack.tables.audit);
});

const keySchema = (k: Pick<TableDefinition, "partitionKey" | "sortKey">) => [
  { AttributeName: k.partitionKey.name, KeyType: "HASH" },
  ...(k.sortKey ? [{ AttributeName: k.sortKey.name, KeyType: "RANGE" }] : []),
];

/** The Allow statements of a function's role policies (the audit Deny is tested on its own). */
function statementsOf(name: FunctionName): Statement[] {
  return roleStatements(s, name).filter((st) => st.Effect === "Allow");
}

/** Logical IDs of the tables a statement's resources name. */
function tablesNamed(st: Statement): TableKey[] {
  const text = JSON.stringify(st.Resource);
  // The table's ARN (and its index ARNs), not its stream's (the archive consumer's, tested apart).
  return (["registry", "state", "audit"] as const).filter((t) => text.includes(`"${logicalIds[t]}","Arn"`));
}

describe("tables (from lib/state/tables.ts)", () => {
  it("creates exactly the three tables, on demand", () => {
    s.template.resourceCountIs("AWS::DynamoDB::GlobalTable", TABLES.length);
    s.template.resourceCountIs("AWS::DynamoDB::Table", 0);
  });

  it.each(TABLES.map((def) => [def.id, def] as const))(
    "%s: keys, GSIs, TTL, PITR, protection, retention",
    (_, def) => {
      const id = logicalIds[def.id.toLowerCase() as TableKey];
      const table = s.template.toJSON().Resources[id];
      const props = table.Properties;
      expect(props.KeySchema).toEqual(keySchema(def));
      expect(props.BillingMode).toBe("PAY_PER_REQUEST");
      expect(props.GlobalSecondaryIndexes ?? []).toEqual(
        def.globalSecondaryIndexes.map((g) => ({
          IndexName: g.indexName,
          KeySchema: keySchema(g),
          Projection: { ProjectionType: "ALL" },
        })),
      );
      expect(props.TimeToLiveSpecification).toEqual(
        def.timeToLiveAttribute ? { AttributeName: def.timeToLiveAttribute, Enabled: true } : undefined,
      );
      expect(props.Replicas).toHaveLength(1);
      expect(props.Replicas[0].PointInTimeRecoverySpecification).toEqual({
        PointInTimeRecoveryEnabled: def.pointInTimeRecovery,
      });
      expect(props.Replicas[0].DeletionProtectionEnabled).toBe(def.deletionProtection);
      expect(table.DeletionPolicy).toBe(def.retain ? "Retain" : "Delete");
      expect(table.UpdateReplacePolicy).toBe(def.retain ? "Retain" : "Delete");
    },
  );

  it("matches the design: Registry PITR + sparse running GSI, State TTL expiresAt, Audit retained", () => {
    s.template.hasResource("AWS::DynamoDB::GlobalTable", {
      Properties: Match.objectLike({
        KeySchema: keySchema(REGISTRY_TABLE),
        GlobalSecondaryIndexes: [Match.objectLike({ IndexName: "running" })],
        Replicas: [
          Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
        ],
      }),
    });
    s.template.hasResourceProperties("AWS::DynamoDB::GlobalTable", {
      KeySchema: keySchema(STATE_TABLE),
      TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
    });
    s.template.hasResource("AWS::DynamoDB::GlobalTable", {
      DeletionPolicy: "Retain",
      Properties: Match.objectLike({
        TimeToLiveSpecification: { AttributeName: "purgeAt", Enabled: true },
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: "principal",
            KeySchema: keySchema(AUDIT_TABLE.globalSecondaryIndexes[0]!),
          }),
        ],
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
  });
});

describe("secrets", () => {
  it("generates the cursor and identity keys as {keyId, secret} JSON", () => {
    s.template.resourceCountIs("AWS::SecretsManager::Secret", 2);
    s.template.allResourcesProperties("AWS::SecretsManager::Secret", {
      GenerateSecretString: Match.objectLike({
        SecretStringTemplate: JSON.stringify({ keyId: "k1" }),
        GenerateStringKey: "secret",
        PasswordLength: 64,
        ExcludePunctuation: true,
      }),
    });
  });
});

describe("functions", () => {
  it("creates exactly the functions of infra/functions.ts", () => {
    s.template.resourceCountIs("AWS::Lambda::Function", FUNCTIONS.length);
  });

  it.each(FUNCTIONS.map((f) => [f.name, f] as const))(
    "%s: runtime, arch, handler, timeout, memory, env, logs",
    (name, spec) => {
      const fn = s.template.toJSON().Resources[logicalIds[name]].Properties;
      expect(fn.Runtime).toBe("nodejs22.x");
      expect(fn.Architectures).toEqual(["arm64"]);
      expect(fn.Handler).toBe("index.handler");
      expect(fn.Timeout).toBe(name === "health-probe" || name === "audit-archive" ? 60 : 12);
      expect(fn.MemorySize).toBe(spec.memoryMiB);
      const switchOnly = { [ENV.enabled]: "true", NODE_OPTIONS: "--enable-source-maps" };
      const archive = s.stack.getLogicalId(s.stack.archiveBucket.bucket.node.defaultChild as never);
      const bucketOnly = { [ENV.auditArchiveBucket]: { Ref: archive }, NODE_OPTIONS: "--enable-source-maps" };
      expect(fn.Environment.Variables).toEqual(
        name === "health"
          ? switchOnly
          : name === "audit-archive"
            ? bucketOnly
            : {
                [ENV.enabled]: "true",
                [ENV.registryTable]: { Ref: logicalIds.registry },
                [ENV.stateTable]: { Ref: logicalIds.state },
                [ENV.auditTable]: { Ref: logicalIds.audit },
                [ENV.cursorKeySecret]: {
                  Ref: s.stack.getLogicalId(s.stack.keys.cursorKey.node.defaultChild as never),
                },
                [ENV.identityKeySecret]: {
                  Ref: s.stack.getLogicalId(s.stack.keys.identityKey.node.defaultChild as never),
                },
                [ENV.kubeconfigSecretPrefix]: "runtime-logs/clusters/",
                [ENV.auditRetentionDays]: "400",
                NODE_OPTIONS: "--enable-source-maps",
              },
      );
      // Every variable set is one the functions read (lib/config.ts).
      const known = new Set<string>([...Object.values(ENV), "NODE_OPTIONS"]);
      for (const key of Object.keys(fn.Environment.Variables)) expect(known).toContain(key);
      // Its own log group, with retention.
      const logGroupId = fn.LoggingConfig.LogGroup.Ref as string;
      expect(s.template.toJSON().Resources[logGroupId].Properties.RetentionInDays).toBe(30);
      expect(fn.VpcConfig).toBeUndefined();
    },
  );

  it("gives HTTP functions 12 s and logs/download more memory than status", () => {
    s.template.resourcePropertiesCountIs("AWS::Lambda::Function", { Timeout: 12 }, 4);
    s.template.resourcePropertiesCountIs("AWS::Lambda::Function", { Timeout: 60 }, 2);
    s.template.resourcePropertiesCountIs("AWS::Lambda::Function", { MemorySize: 1024 }, 2);
  });

  it("roles carry no managed policies", () => {
    for (const [, role] of resources(s.template, "AWS::IAM::Role")) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe("IAM (least privilege)", () => {
  it("never grants a wildcard action", () => {
    for (const [, policy] of resources(s.template, "AWS::IAM::Policy")) {
      for (const st of (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement) {
        for (const action of actionsOf(st)) expect(action).not.toMatch(/\*/);
      }
    }
  });

  it.each(FUNCTIONS.map((f) => [f.name] as const))(
    "%s: exactly the table actions of infra/access.ts",
    (name) => {
      const statements = statementsOf(name);
      const granted: Partial<Record<TableKey, string[]>> = {};
      for (const st of statements) {
        const tables = tablesNamed(st);
        if (tables.length === 0) continue;
        expect(tables).toHaveLength(1);
        for (const action of actionsOf(st)) expect(action).toMatch(/^dynamodb:[A-Za-z]+$/);
        granted[tables[0]!] = [...(granted[tables[0]!] ?? []), ...actionsOf(st)];
      }
      const expected = TABLE_ACCESS[name];
      expect(Object.keys(granted).sort()).toEqual(Object.keys(expected).sort());
      for (const [table, access] of Object.entries(expected)) {
        expect(granted[table as TableKey]?.sort()).toEqual([...access.actions].sort());
      }
    },
  );

  it("follows the design's access matrix", () => {
    const read = ["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query"];
    const limiter = ["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"];
    const expected: Record<FunctionName, Partial<Record<TableKey, string[]>>> = {
      status: { registry: read, state: limiter, audit: ["dynamodb:PutItem", "dynamodb:Query"] },
      logs: { registry: read, state: limiter, audit: ["dynamodb:PutItem"] },
      download: { registry: read, state: limiter, audit: ["dynamodb:PutItem"] },
      health: {},
      "audit-archive": {},
      "health-probe": {
        registry: read,
        state: limiter,
        audit: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"],
      },
    };
    for (const { name } of FUNCTIONS) {
      const granted: Record<string, string[]> = {};
      for (const st of statementsOf(name)) {
        for (const t of tablesNamed(st)) granted[t] = [...(granted[t] ?? []), ...actionsOf(st)].sort();
      }
      expect(granted).toEqual(expected[name]);
    }
  });

  it("writes the audit trail append-only from logs and download", () => {
    for (const name of ["logs", "download"] as const) {
      const audit = statementsOf(name).filter((st) => tablesNamed(st).includes("audit"));
      expect(audit.flatMap(actionsOf)).toEqual(["dynamodb:PutItem"]);
    }
  });

  it("lets only the probe use a GSI, and only the running index", () => {
    for (const { name } of FUNCTIONS) {
      const indexes = JSON.stringify(statementsOf(name)).match(/\/index\/[^"]*/g) ?? [];
      expect(indexes).toEqual(name === "health-probe" ? ["/index/running"] : []);
    }
  });

  it.each(FUNCTIONS.map((f) => [f.name] as const))(
    "%s: reads exactly the secrets of infra/access.ts",
    (name) => {
      const secrets = statementsOf(name).filter((st) =>
        actionsOf(st).some((a) => a.startsWith("secretsmanager:")),
      );
      const wanted = SECRET_ACCESS[name];
      if (wanted.length === 0) {
        expect(secrets).toEqual([]);
        return;
      }
      expect(secrets).toHaveLength(1);
      expect(actionsOf(secrets[0]!)).toEqual(["secretsmanager:GetSecretValue"]);
      const resources = (secrets[0]!.Resource as unknown[]).map((r) => JSON.stringify(r));
      const named = {
        cursorKey: `"${s.stack.getLogicalId(s.stack.keys.cursorKey.node.defaultChild as never)}"`,
        identityKey: `"${s.stack.getLogicalId(s.stack.keys.identityKey.node.defaultChild as never)}"`,
        kubeconfigs: ":secret:runtime-logs/clusters/*",
        openshell: ":secret:runtime-logs/openshell/*",
      };
      expect(resources).toHaveLength(wanted.length);
      for (const [key, marker] of Object.entries(named)) {
        const hits = resources.filter((r) => r.includes(marker)).length;
        expect(hits, `${name} ${key}`).toBe(wanted.includes(key as keyof typeof named) ? 1 : 0);
      }
    },
  );

  it("follows the design's secret matrix: clusters for every reader, sandboxes for logs, download, probe", () => {
    expect(SECRET_ACCESS).toEqual({
      status: ["cursorKey", "identityKey", "kubeconfigs"],
      logs: ["cursorKey", "identityKey", "kubeconfigs", "openshell"],
      download: ["cursorKey", "identityKey", "kubeconfigs", "openshell"],
      health: [],
      "audit-archive": [],
      "health-probe": ["cursorKey", "identityKey", "kubeconfigs", "openshell"],
    });
  });

  it("/health: no table, secret or KMS grant; only its own log group (and the audit Deny)", () => {
    const statements = roleStatements(s, "health");
    const allowed = statements.filter((st) => st.Effect === "Allow").flatMap(actionsOf);
    expect(allowed.sort()).toEqual(["logs:CreateLogStream", "logs:PutLogEvents"]);
    expect(statements.filter((st) => st.Effect === "Deny").flatMap(actionsOf)).toEqual([
      "dynamodb:BatchWriteItem",
      "dynamodb:DeleteItem",
    ]);
  });

  it("lets each function write only its own log group", () => {
    for (const { name } of FUNCTIONS) {
      const logs = statementsOf(name).filter((st) => actionsOf(st).some((a) => a.startsWith("logs:")));
      const logGroupId = s.stack.getLogicalId(s.stack.functions[name].logGroup.node.defaultChild as never);
      expect(logs).toEqual([
        {
          Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
          Effect: "Allow",
          Resource: { "Fn::GetAtt": [logGroupId, "Arn"] },
        },
      ]);
    }
  });
});

describe("immutable audit", () => {
  it.each(FUNCTIONS.map((f) => [f.name] as const))(
    "%s: explicitly denied DeleteItem and BatchWriteItem on the Audit table and its indexes",
    (name) => {
      const audit = logicalIds.audit;
      const denies = roleStatements(s, name).filter(
        (st) => st.Effect === "Deny" && actionsOf(st).some((a) => a.startsWith("dynamodb:")),
      );
      expect(denies).toEqual([
        {
          Effect: "Deny",
          Action: ["dynamodb:BatchWriteItem", "dynamodb:DeleteItem"],
          Resource: [
            { "Fn::GetAtt": [audit, "Arn"] },
            { "Fn::Join": ["", [{ "Fn::GetAtt": [audit, "Arn"] }, "/index/*"]] },
          ],
        },
      ]);
      // And nothing allows them on the Audit table in the first place.
      for (const st of statementsOf(name).filter((x) => tablesNamed(x).includes("audit"))) {
        expect(actionsOf(st)).not.toContain("dynamodb:DeleteItem");
        expect(actionsOf(st)).not.toContain("dynamodb:BatchWriteItem");
      }
    },
  );

  it("keeps the Registry (grants) and the Audit table on stack deletion, with deletion protection", () => {
    for (const table of ["registry", "audit"] as const) {
      const resource = s.template.toJSON().Resources[logicalIds[table]];
      expect(resource.DeletionPolicy).toBe("Retain");
      expect(resource.Properties.Replicas[0].DeletionProtectionEnabled).toBe(true);
    }
  });
});

describe("reserved concurrency and alarm topic", () => {
  it.each(FUNCTIONS.map((f) => [f.name, f] as const))(
    "%s: reserved concurrency from infra/functions.ts",
    (name, spec) => {
      const fn = s.template.toJSON().Resources[logicalIds[name]].Properties;
      expect(fn.ReservedConcurrentExecutions).toBe(spec.reservedConcurrency);
      expect(spec.reservedConcurrency).toBeGreaterThan(0);
    },
  );

  it("warns loudly at synth when no alarm topic is given", () => {
    const warnings = s.stack.node.metadata
      .filter((m) => m.type === "aws:cdk:warning")
      .map((m) => String(m.data));
    expect(warnings.some((w) => w.includes("NO ALARM TOPIC"))).toBe(true);
  });
});

describe("HTTP API", () => {
  const templateRoutes = () => resources(s.template, "AWS::ApiGatewayV2::Route").map(([, r]) => r.Properties);

  it("the one table holds exactly the routes of docs/api.md, each on its function", () => {
    // Written out from the contract, not derived: a route added, dropped or renamed in
    // lib/service/routes.ts must fail here (every other check below derives from the table).
    const runtime = "/namespaces/{namespaceId}/agents/{agentId}/deployments/{deploymentId}/runtime";
    expect(API_ROUTES.map((r) => [r.routeKey, r.function, r.public])).toEqual([
      ["GET /health", "health", true],
      ["GET /namespaces/{namespaceId}/agents/{agentId}/deployments", "status", false],
      [`GET ${runtime}`, "status", false],
      [`GET ${runtime}/logs`, "logs", false],
      [`GET ${runtime}/logs/download`, "download", false],
    ]);
  });

  it("routes exactly the routes of the one table (lib/service/routes.ts), GET only", () => {
    const keys = templateRoutes().map((r) => r.RouteKey as string);
    expect(keys.sort()).toEqual(API_ROUTES.map((r) => r.routeKey).sort());
    for (const r of API_ROUTES) expect(r.routeKey).toBe(`GET ${r.path}`);
  });

  it.each(API_ROUTES.map((r) => [r.routeKey, r] as const))("%s: integration and authorizer", (key, route) => {
    const r = templateRoutes().find((p) => p.RouteKey === key)!;
    expect(r.AuthorizationType).toBe(route.public ? "NONE" : "AWS_IAM");
    const integrationId = (r.Target as { "Fn::Join": [string, [string, { Ref: string }]] })["Fn::Join"][1][1]
      .Ref;
    const integration = s.template.toJSON().Resources[integrationId].Properties;
    expect(integration.IntegrationType).toBe("AWS_PROXY");
    expect(integration.PayloadFormatVersion).toBe("2.0");
    expect(JSON.stringify(integration.IntegrationUri)).toContain(`"${logicalIds[route.function]}"`);
  });

  it("uses one Lambda proxy integration per function, invocable from its routes only", () => {
    s.template.resourceCountIs(
      "AWS::ApiGatewayV2::Integration",
      new Set(API_ROUTES.map((r) => r.function)).size,
    );
    const sources = resources(s.template, "AWS::Lambda::Permission").map(([, p]) =>
      JSON.stringify(p.Properties.SourceArn),
    );
    expect(sources).toHaveLength(API_ROUTES.length);
    for (const route of API_ROUTES)
      expect(sources.some((src) => src.includes(`/*/*${route.path}"`))).toBe(true);
  });

  it("has no copy of the table that drifts: the stack, the local stack, the Lambda context and the OpenAPI agree", () => {
    const table = API_ROUTES.map((r) => ({ routeKey: r.routeKey, fn: r.function }));
    expect(ROUTES.map((r) => ({ routeKey: r.routeKey, fn: r.target }))).toEqual(table);
    expect(ROUTES.map((r) => r.path)).toEqual(API_ROUTES.map((r) => r.path));
    expect(ROUTES.map((r) => r.public)).toEqual(API_ROUTES.map((r) => r.public));
    expect(LOCAL_ROUTES).toEqual(table);
    for (const r of API_ROUTES) {
      expect(matchRoute("GET", r.path.replace(/\{[^}]+\}/g, "x"))?.route.fn, r.routeKey).toBe(r.function);
    }
    for (const f of FUNCTIONS) {
      if (f.local) expect(LOCAL_TIMEOUT_MS[f.name]).toBe(f.timeoutSeconds * 1000);
      const fn = s.template.toJSON().Resources[logicalIds[f.name]].Properties;
      expect([fn.Timeout, fn.MemorySize, fn.ReservedConcurrentExecutions]).toEqual([
        f.timeoutSeconds,
        f.memoryMiB,
        f.reservedConcurrency,
      ]);
    }
    const openapi = buildOpenApi() as { paths: Record<string, { get: { security: unknown[] } }> };
    expect(Object.keys(openapi.paths).sort()).toEqual(API_ROUTES.map((r) => r.path).sort());
    for (const r of API_ROUTES) expect(openapi.paths[r.path]!.get.security.length === 0).toBe(r.public);
    // The template's routes are the table's, route for route (a path changed anywhere else fails here).
    expect(
      templateRoutes()
        .map((r) => [r.RouteKey, r.AuthorizationType === "NONE"])
        .sort(),
    ).toEqual(API_ROUTES.map((r) => [r.routeKey, r.public]).sort());
  });

  it("logs access to a log group and throttles by default", () => {
    s.template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      StageName: "$default",
      AutoDeploy: true,
      AccessLogSettings: {
        DestinationArn: { "Fn::GetAtt": [Match.anyValue(), "Arn"] },
        Format: Match.stringLikeRegexp("requestId"),
      },
      DefaultRouteSettings: {
        ThrottlingBurstLimit: API_THROTTLE.burstLimit,
        ThrottlingRateLimit: API_THROTTLE.rateLimit,
      },
    });
  });

  it("throttles each route on its own, sized for ~1 request/s per follower on logs", () => {
    const stage = resources(s.template, "AWS::ApiGatewayV2::Stage")[0]![1];
    expect(stage.Properties.RouteSettings).toEqual(
      Object.fromEntries(
        ROUTES.map((r) => [
          `GET ${r.path}`,
          { ThrottlingRateLimit: r.throttle.rateLimit, ThrottlingBurstLimit: r.throttle.burstLimit },
        ]),
      ),
    );
    const of = (target: string) => ROUTES.find((r) => r.target === target)!.throttle;
    expect(of("logs")).toEqual({ rateLimit: 500, burstLimit: 1000 });
    // ~150 ms per poll: the logs rate fits the logs function's reserved concurrency.
    const logs = FUNCTIONS.find((f) => f.name === "logs")!;
    expect(of("logs").rateLimit * 0.15).toBeLessThanOrEqual(logs.reservedConcurrency);
    expect(of("download").rateLimit).toBeLessThan(of("status").rateLimit);
  });

  it("outputs the API URL and table names", () => {
    s.template.hasOutput("ApiUrl", { Value: Match.anyValue() });
    s.template.hasOutput("RegistryTableName", { Value: { Ref: logicalIds.registry } });
    s.template.hasOutput("StateTableName", { Value: { Ref: logicalIds.state } });
    s.template.hasOutput("AuditTableName", { Value: { Ref: logicalIds.audit } });
  });
});

describe("probe schedule", () => {
  it("invokes the health probe every 5 minutes with a role that may invoke only it", () => {
    s.template.hasResourceProperties("AWS::Scheduler::Schedule", {
      ScheduleExpression: "rate(5 minutes)",
      State: "ENABLED",
      Target: Match.objectLike({ Arn: { "Fn::GetAtt": [logicalIds["health-probe"], "Arn"] } }),
    });
    const statements = policyStatements(s, s.stack.probeScheduleRole);
    // It may invoke the probe and drop undeliverable invocations into the dead-letter queue.
    expect(statements.flatMap(actionsOf).sort()).toEqual(["lambda:InvokeFunction", "sqs:SendMessage"]);
    const dlq = s.stack.getLogicalId(s.stack.probeDeadLetters.node.defaultChild as never);
    s.template.hasResourceProperties("AWS::Scheduler::Schedule", {
      Target: Match.objectLike({
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 },
        DeadLetterConfig: { Arn: { "Fn::GetAtt": [dlq, "Arn"] } },
      }),
    });
    // No asynchronous retries by Lambda either.
    s.template.hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
      FunctionName: { Ref: logicalIds["health-probe"] },
      MaximumRetryAttempts: 0,
    });
    for (const other of ["status", "logs", "download"] as const) {
      expect(JSON.stringify(statements)).not.toContain(logicalIds[other]);
    }
  });
});

describe("alarms", () => {
  type AlarmProps = Record<string, unknown> & {
    Metrics?: { Id: string; Expression?: string; MetricStat?: unknown }[];
  };
  const alarms = () =>
    resources(s.template, "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties as AlarmProps);

  it.each(FUNCTIONS.map((f) => [f.name, f] as const))(
    "%s: errors, throttles and p99 duration",
    (name, spec) => {
      for (const metric of ["Errors", "Throttles"]) {
        s.template.hasResourceProperties("AWS::CloudWatch::Alarm", {
          Namespace: "AWS/Lambda",
          MetricName: metric,
          Dimensions: [{ Name: "FunctionName", Value: { Ref: logicalIds[name] } }],
          Statistic: "Sum",
          Threshold: 1,
          ComparisonOperator: "GreaterThanOrEqualToThreshold",
        });
      }
      s.template.hasResourceProperties("AWS::CloudWatch::Alarm", {
        Namespace: "AWS/Lambda",
        MetricName: "Duration",
        Dimensions: [{ Name: "FunctionName", Value: { Ref: logicalIds[name] } }],
        ExtendedStatistic: "p99",
        Threshold: spec.timeoutSeconds * 1000 * THRESHOLDS.durationShareOfTimeout,
        ComparisonOperator: "GreaterThanThreshold",
      });
    },
  );

  it("API 5xx as a rate of requests (a math expression), never a bare count", () => {
    const api = s.stack.getLogicalId(s.stack.api.api.node.defaultChild as never);
    const apiAlarms = alarms().filter((a) => JSON.stringify(a).includes("AWS/ApiGateway"));
    expect(apiAlarms).toHaveLength(1);
    const alarm = apiAlarms[0]!;
    expect(alarm.MetricName).toBeUndefined();
    expect(alarm.Threshold).toBe(THRESHOLDS.api5xxPercent);
    expect(alarm.EvaluationPeriods).toBe(THRESHOLDS.api5xxPeriods);
    const expression = alarm.Metrics!.find((m) => m.Expression)!;
    expect(expression.Expression).toBe(
      `IF(requests >= ${THRESHOLDS.api5xxMinRequests}, 100 * errors / requests, 0)`,
    );
    const stat = (id: string) => JSON.stringify(alarm.Metrics!.find((m) => m.Id === id)!.MetricStat);
    expect(stat("errors")).toContain('"MetricName":"5xx"');
    expect(stat("requests")).toContain('"MetricName":"Count"');
    expect(stat("errors")).toContain(`"${api}"`);
  });

  it("DynamoDB throttling per table (reads and writes)", () => {
    for (const table of ["registry", "state", "audit"] as const) {
      const found = alarms().filter(
        (a) =>
          a.Metrics?.some((m) => m.Expression === "reads + writes") &&
          JSON.stringify(a).includes(`"${logicalIds[table]}"`),
      );
      expect(found, table).toHaveLength(1);
      const text = JSON.stringify(found[0]);
      expect(text).toContain("ReadThrottleEvents");
      expect(text).toContain("WriteThrottleEvents");
    }
  });

  it("probe failures, and the audit archive's failure queue and iterator age", () => {
    // As lib/probe/report.ts emits it: namespace RuntimeLogs, dimension Function=health-probe, a
    // count every run (0 when healthy), so a missing value means the probe did not run.
    s.template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: METRIC_NAMESPACE,
      MetricName: "ProbeFailures",
      Dimensions: [{ Name: "Function", Value: "health-probe" }],
      Statistic: "Sum",
      Threshold: 1,
      TreatMissingData: "breaching",
    });
    s.template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [
        {
          Name: "QueueName",
          Value: {
            "Fn::GetAtt": [
              s.stack.getLogicalId(s.stack.auditArchive.failures.node.defaultChild as never),
              "QueueName",
            ],
          },
        },
      ],
      Threshold: 1,
    });
    s.template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "AWS/Lambda",
      MetricName: "IteratorAge",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: logicalIds["audit-archive"] } }],
      Threshold: THRESHOLDS.archiveIteratorAgeMs,
    });
    s.template.resourceCountIs("AWS::CloudWatch::Alarm", FUNCTIONS.length * 3 + 1 + 3 + 3);
  });

  it("has no actions without alarmTopicArn (and synth warns, above)", () => {
    for (const alarm of alarms()) expect(alarm.AlarmActions).toBeUndefined();
  });
});

describe("alarmTopicArn", () => {
  it("sends every alarm to the topic", () => {
    const topic = "arn:aws:sns:us-east-1:123456789012:runtime-logs-alarms";
    const t = synth({ alarmTopicArn: topic });
    const all = resources(t.template, "AWS::CloudWatch::Alarm");
    expect(all.length).toBeGreaterThan(0);
    for (const [, alarm] of all) expect(alarm.Properties.AlarmActions).toEqual([topic]);
    const warnings = t.stack.node.metadata
      .filter((m) => m.type === "aws:cdk:warning")
      .map((m) => String(m.data));
    expect(warnings.some((w) => w.includes("NO ALARM TOPIC"))).toBe(false);
  });
});

describe("cdk-nag (AWS Solutions)", () => {
  it("passes with every finding acknowledged", () => {
    expect(s.error).toBeUndefined();
    expect(s.report.pluginReports.map((p) => p.pluginName)).toContain("AwsSolutions");
    expect(unacknowledged(s.report)).toEqual([]);
  });

  it("gives every acknowledgement a real reason", () => {
    const acks = acknowledgements(s.stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.id).toMatch(/^AwsSolutions::AwsSolutions-[A-Z]+\d+/);
      expect(ack.reason.length).toBeGreaterThan(60);
    }
  });
});
