/**
 * Alarms (docs/surfaces.md § Alarms): per function errors, throttles and p99 duration near the
 * timeout; the API's 5xx *rate* (503 BUSY answers are designed back-pressure, so a count would fire
 * on a healthy, busy service); DynamoDB throttling per table; the probe's failures (the EMF metric
 * `RuntimeLogs/ProbeFailures` that functions/health-probe.ts emits); and the audit archive's
 * delivery (records in its failure queue, a stream consumer falling behind). Each alarm notifies the
 * optional topic; without one synth warns loudly (runtime-logs-stack.ts).
 */
import { Duration } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";

import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Topic } from "aws-cdk-lib/aws-sns";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { METRIC_NAMESPACE, PROBE_DIMENSION, PROBE_FAILURES_METRIC } from "../../lib/probe/report.ts";

/**
 * The probe's EMF metric as lib/probe/report.ts writes it: one count per run (0 when healthy) with the
 * dimension `Function` = `health-probe` (its default function name).
 */
export const PROBE_METRIC = {
  namespace: METRIC_NAMESPACE,
  metricName: PROBE_FAILURES_METRIC,
  dimensionsMap: PROBE_DIMENSION,
} as const;

const PERIOD = Duration.minutes(5);

/** The thresholds, named so the tests and docs quote the same numbers. */
export const THRESHOLDS = {
  /** p99 duration above this share of the timeout: requests are about to time out. */
  durationShareOfTimeout: 0.8,
  /** API 5xx answers, percent of requests, sustained over `api5xxPeriods` five-minute periods. */
  api5xxPercent: 5,
  api5xxPeriods: 3,
  /** Below this many requests in a period the rate is not judged (one 500 of three is noise). */
  api5xxMinRequests: 50,
  /** The archive consumer's iterator age: records older than this are not yet archived. */
  archiveIteratorAgeMs: 15 * 60_000,
} as const;

export interface AlarmedFunction {
  fn: IFunction;
  timeoutSeconds: number;
}

export interface ServiceAlarmsProps {
  functions: Record<string, AlarmedFunction>;
  api: HttpApi;
  /** Table names by their short name. */
  tables: Record<string, string>;
  /** The audit archive: its consumer's name and its failure queue. */
  archive: { consumer: string; failures: IQueue };
  alarmTopicArn: string | undefined;
}

export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    for (const [name, { fn, timeoutSeconds }] of Object.entries(props.functions)) {
      this.add(`${name}-errors`, fn.metricErrors({ period: PERIOD, statistic: "Sum" }), {
        description: `${name}: invocation errors`,
      });
      this.add(`${name}-throttles`, fn.metricThrottles({ period: PERIOD, statistic: "Sum" }), {
        description: `${name}: throttled (reserved concurrency reached)`,
      });
      const limitMs = Math.round(timeoutSeconds * 1000 * THRESHOLDS.durationShareOfTimeout);
      this.add(`${name}-duration`, fn.metricDuration({ period: PERIOD, statistic: "p99" }), {
        description: `${name}: p99 duration above ${limitMs} ms (${THRESHOLDS.durationShareOfTimeout * 100} % of the timeout)`,
        threshold: limitMs,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }

    // A rate, judged only with enough requests: 503 BUSY is the designed answer to load.
    const rate = new MathExpression({
      expression: `IF(requests >= ${THRESHOLDS.api5xxMinRequests}, 100 * errors / requests, 0)`,
      usingMetrics: {
        errors: props.api.metricServerError({ period: PERIOD, statistic: "Sum" }),
        requests: props.api.metricCount({ period: PERIOD, statistic: "Sum" }),
      },
      period: PERIOD,
      label: "5xx % of requests",
    });
    this.add("api-5xx-rate", rate, {
      description: `HTTP API: more than ${THRESHOLDS.api5xxPercent} % of answers are 5xx for ${THRESHOLDS.api5xxPeriods * 5} minutes`,
      threshold: THRESHOLDS.api5xxPercent,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      periods: THRESHOLDS.api5xxPeriods,
    });

    for (const [name, tableName] of Object.entries(props.tables)) {
      const dims = { TableName: tableName };
      const throttled = new MathExpression({
        expression: "reads + writes",
        usingMetrics: {
          reads: new Metric({
            namespace: "AWS/DynamoDB",
            metricName: "ReadThrottleEvents",
            dimensionsMap: dims,
            period: PERIOD,
            statistic: "Sum",
          }),
          writes: new Metric({
            namespace: "AWS/DynamoDB",
            metricName: "WriteThrottleEvents",
            dimensionsMap: dims,
            period: PERIOD,
            statistic: "Sum",
          }),
        },
        period: PERIOD,
        label: `${name} throttle events`,
      });
      this.add(`${name}-table-throttles`, throttled, {
        description: `${name} table: DynamoDB throttled requests`,
      });
    }

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
      {
        description: "health probe: a check failed or the probe stopped reporting",
        missing: TreatMissingData.BREACHING,
      },
    );

    this.add(
      "archive-failures",
      props.archive.failures.metricApproximateNumberOfMessagesVisible({
        period: PERIOD,
        statistic: "Maximum",
      }),
      { description: "audit archive: stream records could not be archived (see the failure queue)" },
    );
    this.add(
      "archive-iterator-age",
      new Metric({
        namespace: "AWS/Lambda",
        metricName: "IteratorAge",
        dimensionsMap: { FunctionName: props.archive.consumer },
        period: PERIOD,
        statistic: "Maximum",
      }),
      {
        description: "audit archive: the stream consumer is falling behind",
        threshold: THRESHOLDS.archiveIteratorAgeMs,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      },
    );

    if (props.alarmTopicArn) {
      const action = new SnsAction(Topic.fromTopicArn(this, "Topic", props.alarmTopicArn));
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    }
  }

  private add(
    id: string,
    metric: IMetric,
    options: {
      description: string;
      threshold?: number;
      comparison?: ComparisonOperator;
      periods?: number;
      missing?: TreatMissingData;
    },
  ): void {
    this.alarms.push(
      new Alarm(this, id, {
        metric,
        threshold: options.threshold ?? 1,
        evaluationPeriods: options.periods ?? 1,
        comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: options.missing ?? TreatMissingData.NOT_BREACHING,
        alarmDescription: `runtime-logs ${options.description}`,
      }),
    );
  }
}
