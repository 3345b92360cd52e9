/**
 * The runtime-logs stack (surfaces.md § CDK stack): tables, keys, the functions with
 * least-privilege grants, the HTTP API, the probe schedule and alarms. Environment-agnostic and free
 * of lookups, so `cdk synth` runs offline without an AWS account.
 */
import { Annotations, CfnOutput, Duration, Stack, type StackProps } from "aws-cdk-lib";
import { Effect, PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Schedule, ScheduleExpression, ScheduleTargetInput } from "aws-cdk-lib/aws-scheduler";
import { LambdaInvoke } from "aws-cdk-lib/aws-scheduler-targets";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { OPENSHELL_SECRET_PREFIX } from "../lib/openshell/connection.ts";
import { AUDIT_TABLE, REGISTRY_TABLE, STATE_TABLE, type TableDefinition } from "../lib/state/tables.ts";
import {
  AUDIT_DELETE_ACTIONS,
  kmsActionsOf,
  SECRET_ACCESS,
  type SecretKey,
  TABLE_ACCESS,
  type TableAccess,
  type TableKey,
} from "./access.ts";
import { ServiceAlarms } from "./constructs/alarms.ts";
import { AuditArchive, AuditArchiveBucket } from "./constructs/audit-archive.ts";
import { ConsoleSite } from "./constructs/console.ts";
import { RuntimeLogsApi } from "./constructs/http-api.ts";
import { KUBECONFIG_SECRET_PREFIX, ServiceKeys } from "./constructs/keys.ts";
import { ServiceNetwork } from "./constructs/network.ts";
import {
  grantKeyUse,
  grantSecretRead,
  grantTable,
  ServiceFunction,
  secretPrefixArn,
} from "./constructs/service-function.ts";
import { ServiceTables } from "./constructs/tables.ts";
import { type EnvironmentInput, functionEnvironment } from "./environment.ts";
import { defaultEntry, FUNCTIONS, type FunctionName } from "./functions.ts";
import type { StackSettings } from "./settings.ts";

export interface RuntimeLogsStackProps extends StackProps {
  settings: StackSettings;
  /** Entry files per function (tests only); default `functions/<name>.ts`. */
  entries?: Partial<Record<FunctionName, string>>;
}

export class RuntimeLogsStack extends Stack {
  readonly tables: ServiceTables;
  readonly keys: ServiceKeys;
  readonly network: ServiceNetwork | undefined;
  readonly functions: Record<FunctionName, ServiceFunction>;
  readonly archiveBucket: AuditArchiveBucket;
  readonly auditArchive: AuditArchive;
  readonly api: RuntimeLogsApi;
  readonly probeSchedule: Schedule;
  readonly probeScheduleRole: Role;
  readonly probeDeadLetters: Queue;
  readonly alarms: ServiceAlarms;
  readonly withConsole: boolean;
  readonly console: ConsoleSite | undefined;

  constructor(scope: Construct, id: string, props: RuntimeLogsStackProps) {
    super(scope, id, {
      description: "runtime-logs: authorized, limited, audited, redacted reads of agent runtimes",
      ...props,
    });
    const { settings } = props;
    this.keys = new ServiceKeys(this, "Keys", { cmk: settings.cmk });
    this.tables = new ServiceTables(this, "Tables", { key: this.keys.encryptionKey });
    this.network = settings.vpc ? new ServiceNetwork(this, "Network", settings.vpc) : undefined;

    this.archiveBucket = new AuditArchiveBucket(this, "AuditArchiveBucket", {
      retentionDays: settings.auditRetentionDays,
      key: this.keys.encryptionKey,
    });
    const environmentInput: EnvironmentInput = {
      runtimeLogsEnabled: settings.runtimeLogsEnabled,
      tables: this.tables.names,
      cursorKeySecret: this.keys.cursorKey.secretArn,
      identityKeySecret: this.keys.identityKey.secretArn,
      kubeconfigSecretPrefix: KUBECONFIG_SECRET_PREFIX,
      limits: settings.limits,
      auditRetentionDays: settings.auditRetentionDays,
      auditArchiveBucket: this.archiveBucket.bucket.bucketName,
    };
    const secretArns: Record<SecretKey, string> = {
      cursorKey: this.keys.cursorKey.secretArn,
      identityKey: this.keys.identityKey.secretArn,
      kubeconfigs: secretPrefixArn(this, KUBECONFIG_SECRET_PREFIX),
      openshell: secretPrefixArn(this, OPENSHELL_SECRET_PREFIX),
    };
    const tableArns: Record<TableKey, string> = {
      registry: this.tables.registry.tableArn,
      state: this.tables.state.tableArn,
      audit: this.tables.audit.tableArn,
    };
    const definitions: Record<TableKey, TableDefinition> = {
      registry: REGISTRY_TABLE,
      state: STATE_TABLE,
      audit: AUDIT_TABLE,
    };

    const functions = {} as Record<FunctionName, ServiceFunction>;
    for (const spec of FUNCTIONS) {
      const fn = new ServiceFunction(this, pascal(spec.name), {
        spec,
        entry: props.entries?.[spec.name] ?? defaultEntry(spec.name),
        environment: functionEnvironment(spec.environment, environmentInput),
        network: spec.inVpc
          ? this.network?.placement(SECRET_ACCESS[spec.name].includes("openshell"))
          : undefined,
        reservedConcurrency: settings.reservedConcurrency[spec.name] ?? spec.reservedConcurrency,
      });
      const grants = Object.entries(TABLE_ACCESS[spec.name]) as [TableKey, TableAccess][];
      for (const [table, access] of grants) {
        for (const index of access.indexes ?? []) {
          if (!definitions[table].globalSecondaryIndexes.some((gsi) => gsi.indexName === index)) {
            throw new Error(`The ${table} table has no index "${index}".`);
          }
        }
        grantTable(fn.role, { tableArn: tableArns[table], ...access });
      }
      const secrets = SECRET_ACCESS[spec.name];
      if (secrets.length > 0) {
        grantSecretRead(
          fn.role,
          secrets.map((key) => secretArns[key]),
        );
      }
      const kms = kmsActionsOf(spec.name);
      if (this.keys.encryptionKey && kms.length > 0) {
        grantKeyUse(fn.role, this.keys.encryptionKey.keyArn, kms, ["dynamodb", "secretsmanager"]);
      }
      // Append-only audit where it lands too: no function role may delete an audit item, whatever
      // else a later grant adds (an explicit Deny wins over every Allow).
      fn.role.addToPolicy(
        new PolicyStatement({
          effect: Effect.DENY,
          actions: [...AUDIT_DELETE_ACTIONS],
          resources: [this.tables.audit.tableArn, `${this.tables.audit.tableArn}/index/*`],
        }),
      );
      functions[spec.name] = fn;
    }
    this.functions = functions;
    this.auditArchive = new AuditArchive(this, "AuditDelivery", {
      table: this.tables.audit,
      archive: this.archiveBucket,
      consumer: functions["audit-archive"],
      key: this.keys.encryptionKey,
    });

    this.api = new RuntimeLogsApi(this, "Http", {
      authorizer: settings.authorizer,
      domain: settings.apiDomain,
      functions: {
        status: functions.status.fn,
        logs: functions.logs.fn,
        download: functions.download.fn,
        health: functions.health.fn,
      },
    });

    // The scheduler's own role (rather than the shared singleton): it may invoke the probe only.
    this.probeScheduleRole = new Role(this, "ProbeScheduleRole", {
      assumedBy: new ServicePrincipal("scheduler.amazonaws.com", {
        conditions: { StringEquals: { "aws:SourceAccount": this.account } },
      }),
      description: "runtime-logs: EventBridge Scheduler invokes the health probe",
    });
    // Invocations the scheduler could not deliver land here instead of vanishing.
    this.probeDeadLetters = new Queue(this, "ProbeDeadLetters", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    // Lambda retries asynchronous invocations twice by default; a stale probe run is worthless.
    functions["health-probe"].fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(5) });
    this.probeSchedule = new Schedule(this, "ProbeSchedule", {
      description: "runtime-logs health probe",
      schedule: ScheduleExpression.rate(Duration.minutes(5)),
      target: new LambdaInvoke(functions["health-probe"].fn, {
        role: this.probeScheduleRole,
        input: ScheduleTargetInput.fromObject({ source: "runtime-logs.schedule" }),
        // A probe that missed its slot is stale; the next one runs in 5 minutes.
        retryAttempts: 0,
        maxEventAge: Duration.minutes(5),
        deadLetterQueue: this.probeDeadLetters,
      }),
    });

    if (!settings.alarmTopicArn) {
      Annotations.of(this).addWarningV2(
        "runtime-logs:no-alarm-topic",
        "NO ALARM TOPIC: context alarmTopicArn is not set, so every alarm of this stack fires into " +
          "the void. Pass -c alarmTopicArn=arn:aws:sns:<region>:<account>:<topic> for production.",
      );
    }
    this.alarms = new ServiceAlarms(this, "Alarms", {
      functions: Object.fromEntries(
        FUNCTIONS.map((spec) => [
          spec.name,
          { fn: functions[spec.name].fn, timeoutSeconds: spec.timeoutSeconds },
        ]),
      ),
      api: this.api.api,
      tables: { ...this.tables.names },
      archive: { consumer: functions["audit-archive"].fn.functionName, failures: this.auditArchive.failures },
      alarmTopicArn: settings.alarmTopicArn,
    });

    // `withConsole`: the console's bucket and distribution, with the API under the same origin.
    this.withConsole = settings.withConsole;
    this.console = settings.withConsole
      ? new ConsoleSite(this, "Console", {
          apiHost: this.api.host,
          apiEndpointDisabled: this.api.domain !== undefined,
          domain: settings.consoleDomain,
          authorizer: settings.authorizer.kind,
        })
      : undefined;

    new CfnOutput(this, "ApiUrl", { description: "Base URL of the HTTP API", value: this.api.url });
    if (this.api.domain) {
      new CfnOutput(this, "ApiDnsTarget", {
        description: `Point ${settings.apiDomain?.domainName} (CNAME or alias) at this regional name`,
        value: this.api.domain.regionalDomainName,
      });
    }
    new CfnOutput(this, "RegistryTableName", { value: this.tables.registry.tableName });
    new CfnOutput(this, "StateTableName", { value: this.tables.state.tableName });
    new CfnOutput(this, "AuditTableName", { value: this.tables.audit.tableName });
    new CfnOutput(this, "AuditArchiveBucketName", {
      description: "Object-Locked archive of every audit write",
      value: this.archiveBucket.bucket.bucketName,
    });
  }
}

const pascal = (name: string): string =>
  name
    .split("-")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
