/**
 * The functions' structured logger: Powertools Logger with a formatter that keeps what varies per
 * line and helps an operator (level, message, time, cold start, function name, Lambda request ID,
 * X-Ray trace ID, filled in by `injectLambdaContext`) and drops what is constant within a log group
 * (service, function ARN, memory size, sampling rate): noise in every line otherwise.
 */
import { LogFormatter, Logger, LogItem } from "@aws-lambda-powertools/logger";
import type { LogAttributes, UnformattedAttributes } from "@aws-lambda-powertools/logger/types";

export class RuntimeLogsLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        cold_start: context?.coldStart,
        function_name: context?.functionName,
        function_request_id: context?.awsRequestId,
        xray_trace_id: attributes.xRayTraceId,
      },
    }).addAttributes(additional);
  }
}

export function createLogger(): Logger {
  return new Logger({
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? "runtime-logs",
    logFormatter: new RuntimeLogsLogFormatter(),
  });
}
