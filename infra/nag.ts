/**
 * cdk-nag (AWS Solutions) acknowledgements: every finding the stack keeps on purpose, on the
 * narrowest construct, with the reason. Exported as data so the report and the tests can list them.
 */
import { Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
import { OPENSHELL_SECRET_PREFIX } from "../lib/openshell/connection.ts";
import { API_ROUTES } from "../lib/service/routes.ts";
import { SECRET_ACCESS } from "./access.ts";
import { KUBECONFIG_SECRET_PREFIX } from "./constructs/keys.ts";
import type { FunctionName } from "./functions.ts";
import type { RuntimeLogsStack } from "./runtime-logs-stack.ts";

export interface Acknowledgement {
  construct: IConstruct;
  id: string;
  reason: string;
}

const rule = (id: string) => `AwsSolutions::${id}`;

const secretPrefixFinding = (prefix: string) =>
  `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${prefix}*]`;

export const KUBECONFIG_WILDCARD = secretPrefixFinding(KUBECONFIG_SECRET_PREFIX);
export const OPENSHELL_WILDCARD = secretPrefixFinding(OPENSHELL_SECRET_PREFIX);

export function acknowledgements(stack: RuntimeLogsStack): Acknowledgement[] {
  const list: Acknowledgement[] = [];
  for (const key of [stack.keys.cursorKey, stack.keys.identityKey]) {
    list.push({
      construct: key,
      id: rule("AwsSolutions-SMG4"),
      reason:
        "The key is rotated by an operator procedure that keeps the old key as `previous` in the same " +
        "JSON, so cursors and pseudonyms in flight stay verifiable; a rotation Lambda would drop it.",
    });
  }
  for (const [name, fn] of Object.entries(stack.functions) as [
    FunctionName,
    (typeof stack.functions)[FunctionName],
  ][]) {
    if (SECRET_ACCESS[name].includes("kubeconfigs")) {
      list.push({
        construct: fn.role,
        id: rule(KUBECONFIG_WILDCARD),
        reason:
          "Kubeconfigs are created by operators under the runtime-logs/clusters/ name prefix (never by " +
          "the stack) and Secrets Manager appends a random suffix to every ARN, so only a prefix pattern " +
          "can name them; the action is GetSecretValue alone.",
      });
    }
    if (SECRET_ACCESS[name].includes("openshell")) {
      list.push({
        construct: fn.role,
        id: rule(OPENSHELL_WILDCARD),
        reason:
          "OpenShell connection documents are created by operators under the runtime-logs/openshell/ " +
          "prefix (never by the stack), each with a random ARN suffix, so only a prefix pattern names " +
          "them; granted with GetSecretValue alone, to the functions that read sandboxes.",
      });
    }
    list.push({
      construct: fn.fn,
      id: rule("AwsSolutions-L1"),
      reason:
        "The design pins Node.js 22 (the bundles target node22 and the code is tested on it); moving " +
        "to a newer runtime is a deliberate, tested change, not a silent default.",
    });
    if (stack.network) {
      list.push({
        construct: fn.role,
        id: rule(
          "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]",
        ),
        reason:
          "In a VPC, Lambda manages the function's network interfaces with exactly the EC2 actions of " +
          "this AWS-maintained policy (their resources cannot be named in advance).",
      });
    }
  }
  // The public routes of lib/service/routes.ts (only `/health`) carry no authorizer by contract.
  for (const route of API_ROUTES.filter((r) => r.public)) {
    const added = stack.api.routes.get(route.path);
    if (!added) continue;
    list.push({
      construct: added,
      id: rule("AwsSolutions-APIG4"),
      reason:
        `${route.routeKey} is public by contract (api.md): it reports configuration sanity only, never ` +
        "cluster data, and has its own throttle. Every other route has the authorizer.",
    });
  }
  const archiveBucket = stack.getLogicalId(stack.archiveBucket.bucket.node.defaultChild as never);
  list.push({
    construct: stack.functions["audit-archive"].role,
    id: rule(`AwsSolutions-IAM5[Resource::<${archiveBucket}.Arn>/*]`),
    reason:
      "The archive consumer writes one new object per stream record under keys made from the record, " +
      "so only the bucket's object pattern can name them; the action is s3:PutObject alone and deletes " +
      "and retention changes are explicitly denied.",
  });
  list.push({
    construct: stack.auditArchive.failures,
    id: rule("AwsSolutions-SQS3"),
    reason:
      "This queue is itself the failure destination of the audit stream's event source mapping (records " +
      "that could not be archived after the retries); cdk-nag does not see Lambda on-failure destinations.",
  });
  list.push({
    construct: stack.archiveBucket.logBucket,
    id: rule("AwsSolutions-S1"),
    reason: "This is the access-log bucket of the audit archive itself; logging it into itself would loop.",
  });
  list.push({
    construct: stack.probeDeadLetters,
    id: rule("AwsSolutions-SQS3"),
    reason:
      "This queue is itself the dead-letter queue of the probe's schedule (EventBridge Scheduler's " +
      "target DLQ, which cdk-nag does not see as a redrive source); a DLQ of a DLQ has nothing to catch.",
  });
  list.push({
    construct: stack.probeScheduleRole,
    id: rule(
      `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(stack.functions["health-probe"].fn.node.defaultChild as never)}.Arn>:*]`,
    ),
    reason:
      "lambda:InvokeFunction on the health probe and its versions/aliases (`:*` of that one " +
      "function ARN, added by the Scheduler target); the role may invoke nothing else.",
  });
  return list;
}

export function acknowledgeFindings(stack: RuntimeLogsStack): void {
  for (const ack of acknowledgements(stack)) {
    Validations.of(ack.construct).acknowledge({ id: ack.id, reason: ack.reason });
  }
}
