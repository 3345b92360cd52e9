/**
 * Alarms: errors and throttles per function, API 5xx, and the probe's failures (the EMF metric
 * `RuntimeLogs/ProbeFailures`, no dimensions, that functions/health-probe.ts emits). Each alarm
 * notifies the optional topic; without one they still show in the console and can be wired later.
 */
import { Duration } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  Metric,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Topic } from "aws-cdk-lib/aws-sns";
import { Construct } from "constructs";
import { METRIC_NAMESPACE } from "../../lib/probe/report.ts";

/**
 * The probe's EMF metric as lib/probe/report.ts writes it: one count per run (0 when healthy) with the
 * dimension `Function` = `health-probe` (its default function name).
 */
export const PROBE_METRIC = {
  namespace: METRIC_NAMESPACE,
  metricName: "ProbeFailures",
  dimensionsMap: { Function: "health-probe" },
} as const;

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
      this.add(
        `${name}-errors`,
        fn.metricErrors({ period: PERIOD, statistic: "Sum" }),
        `${name}: invocation errors`,
      );
      this.add(
        `${name}-throttles`,
        fn.metricThrottles({ period: PERIOD, statistic: "Sum" }),
        `${name}: throttled`,
      );
    }
    this.add(
      "api-5xx",
      props.api.metricServerError({ period: PERIOD, statistic: "Sum" }),
      "HTTP API: 5xx answers",
    );
    // The probe runs every 5 minutes and always emits the count: a failed check alarms, and so does
    // a probe that stopped reporting (10-minute window: one late run does not alarm).
    this.add(
      "probe-failures",
      new Metric({
        ...PROBE_METRIC,
        dimensionsMap: { ...PROBE_METRIC.dimensionsMap },
        period: Duration.minutes(10),
        statistic: "Sum",
      }),
      "health probe: a check failed or the probe stopped reporting",
      TreatMissingData.BREACHING,
    );
    if (props.alarmTopicArn) {
      const action = new SnsAction(Topic.fromTopicArn(this, "Topic", props.alarmTopicArn));
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    }
  }

  private add(
    id: string,
    metric: IMetric,
    description: string,
    treatMissingData = TreatMissingData.NOT_BREACHING,
  ): void {
    this.alarms.push(
      new Alarm(this, id, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData,
        alarmDescription: `runtime-logs ${description}`,
      }),
    );
  }
}
