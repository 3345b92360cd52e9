/**
 * Alarms: errors and throttles per function, API 5xx, and the probe's failures (the EMF metric
 * `RuntimeLogs/ProbeFailures`, no dimensions, that functions/health-probe.ts emits). Each alarm
 * notifies the optional topic; without one they still show in the console and can be wired later.
 */
import { Duration } from "aws-cdk-lib";
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  Metric,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Topic } from "aws-cdk-lib/aws-sns";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";

export const PROBE_METRIC = { namespace: "RuntimeLogs", metricName: "ProbeFailures" } as const;

const PERIOD = Duration.minutes(5);

export interface ServiceAlarmsProps {
  functions: Record<string, IFunction>;
  api: HttpApi;
  alarmTopicArn: string | undefined;
}

export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(`${name}-errors`, fn.metricErrors({ period: PERIOD, statistic: "Sum" }), `${name}: invocation errors`);
      this.add(`${name}-throttles`, fn.metricThrottles({ period: PERIOD, statistic: "Sum" }), `${name}: throttled`);
    }
    this.add("api-5xx", props.api.metricServerError({ period: PERIOD, statistic: "Sum" }), "HTTP API: 5xx answers");
    // The probe runs every 5 minutes; any failed check in a period alarms.
    this.add(
      "probe-failures",
      new Metric({ ...PROBE_METRIC, period: PERIOD, statistic: "Sum" }),
      "health probe: a check failed",
    );
    if (props.alarmTopicArn) {
      const action = new SnsAction(Topic.fromTopicArn(this, "Topic", props.alarmTopicArn));
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    }
  }

  private add(id: string, metric: IMetric, description: string): void {
    this.alarms.push(
      new Alarm(this, id, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `runtime-logs ${description}`,
      }),
    );
  }
}
