/**
 * One service function: its role (no managed policies: logging is granted on its own log group),
 * its log group with retention, and the function built from its esbuild bundle (the entry and its
 * chunks, infra/functions.ts). Table and secret access is granted
 * with exact actions through `grantTable` and `grantSecretRead`, never with wildcards.
 */
import * as path from "node:path";
import { ArnFormat, AssetHashType, DockerImage, Duration, Stack } from "aws-cdk-lib";
import type { ISecurityGroup, IVpc, SubnetSelection } from "aws-cdk-lib/aws-ec2";
import { Effect, ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, Code, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { buildSync } from "esbuild";
import { BUNDLING, esbuildOptions, type FunctionSpec } from "../functions.ts";

export interface NetworkPlacement {
  vpc: IVpc;
  subnets: SubnetSelection;
  securityGroups: readonly ISecurityGroup[];
}

export interface ServiceFunctionProps {
  spec: FunctionSpec;
  entry: string;
  environment: Record<string, string>;
  network: NetworkPlacement | undefined;
  /** Concurrent executions reserved for (and capping) this function. */
  reservedConcurrency: number;
}

export const FUNCTION_LOG_RETENTION = RetentionDays.ONE_MONTH;

/** The runtime of every function: Node.js 22 on Graviton. */
export const FUNCTION_RUNTIME = Runtime.NODEJS_22_X;

export class ServiceFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { spec } = props;
    this.logGroup = new LogGroup(this, "Logs", { retention: FUNCTION_LOG_RETENTION });
    this.role = new Role(this, "Role", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: `runtime-logs ${spec.name} function`,
    });
    // The function writes only to its own log group (the role has no managed logging policy).
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    if (props.network) {
      this.role.addManagedPolicy(
        ManagedPolicy.fromAwsManagedPolicyName("service-role/AWSLambdaVPCAccessExecutionRole"),
      );
    }
    this.fn = new LambdaFunction(this, "Function", {
      code: functionCode(props.entry),
      handler: `${BUNDLING.entryName}.handler`,
      description: `runtime-logs: ${spec.description}`,
      runtime: FUNCTION_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: spec.memoryMiB,
      reservedConcurrentExecutions: props.reservedConcurrency,
      timeout: Duration.seconds(spec.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      environment: props.environment,
      ...(props.network
        ? {
            vpc: props.network.vpc,
            vpcSubnets: props.network.subnets,
            securityGroups: [...props.network.securityGroups],
          }
        : {}),
    });
  }
}

/**
 * The function's code: esbuild run locally at synth (no Docker), the entry and its chunks as one
 * asset hashed by its output. `NodejsFunction` cannot split code (it bundles to one file), so the
 * stack runs the same esbuild options as infra/bundle.ts itself. Synth with bundling skipped
 * (`aws:cdk:bundling-stacks`) never calls esbuild.
 */
function functionCode(entry: string): Code {
  return Code.fromAsset(path.dirname(entry), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the API, never pulled: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry("public.ecr.aws/docker/library/node:22"),
      // CDK caches a bundle by its source directory and these (serializable) options, not by
      // `tryBundle`: naming the entry keeps the functions of one directory apart.
      environment: { RUNTIME_LOGS_ENTRY: path.basename(entry) },
      local: {
        tryBundle(outputDir: string): boolean {
          buildSync(esbuildOptions(entry, outputDir));
          return true;
        },
      },
    },
  });
}

export interface TableGrant {
  tableArn: string;
  actions: readonly string[];
  /** GSIs the function queries; each is granted by its exact ARN. */
  indexes?: readonly string[];
}

/** Grants exact DynamoDB actions on one table (and the named indexes only). */
export function grantTable(role: Role, grant: TableGrant): void {
  role.addToPolicy(
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: [...grant.actions],
      resources: [
        grant.tableArn,
        ...(grant.indexes ?? []).map((index) => `${grant.tableArn}/index/${index}`),
      ],
    }),
  );
}

/** Grants `GetSecretValue` on the given secret ARNs (or ARN patterns). */
export function grantSecretRead(role: Role, secretArns: readonly string[]): void {
  role.addToPolicy(
    new PolicyStatement({
      actions: ["secretsmanager:GetSecretValue"],
      resources: [...secretArns],
    }),
  );
}

/** The ARN pattern of the kubeconfig secrets operators create under `prefix`. */
export function secretPrefixArn(scope: Construct, prefix: string): string {
  return Stack.of(scope).formatArn({
    service: "secretsmanager",
    resource: "secret",
    resourceName: `${prefix}*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/**
 * Grants `actions` on the customer-managed key, only when AWS calls it on the role's behalf through
 * one of `services` (e.g. DynamoDB reading an item): the role cannot use the key directly.
 */
export function grantKeyUse(
  role: Role,
  keyArn: string,
  actions: readonly string[],
  services: readonly string[],
): void {
  const stack = Stack.of(role);
  role.addToPolicy(
    new PolicyStatement({
      actions: [...actions],
      resources: [keyArn],
      conditions: {
        StringEquals: {
          "kms:ViaService": services.map((service) => `${service}.${stack.region}.${stack.urlSuffix}`),
        },
      },
    }),
  );
}
