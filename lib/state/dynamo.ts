/**
 * The one factory of DynamoDB clients. Every store takes the document client it builds, so the
 * endpoint (dynalite locally), retries and the call counter are decided in one place.
 */
import http from "node:http";
import https from "node:https";
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DirectDynamoDBClient } from "./dynamo-json.ts";

/** Counts DynamoDB calls by command name (benchmarks, per-request logs, call-budget tests). */
export class CallCounter {
  readonly #counts = new Map<string, number>();

  increment(command: string): void {
    this.#counts.set(command, (this.#counts.get(command) ?? 0) + 1);
  }

  get total(): number {
    let sum = 0;
    for (const n of this.#counts.values()) sum += n;
    return sum;
  }

  /** Calls by command name, e.g. `{ PutItemCommand: 2, UpdateItemCommand: 2 }`. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  reset(): void {
    this.#counts.clear();
  }
}

export interface DynamoOptions {
  /** Local stack and tests only (dynalite); unset in AWS. */
  endpoint?: string | undefined;
  region?: string;
  credentials?: DynamoDBClientConfig["credentials"];
  /** SDK attempts per call (first try included); the SDK default is 3. */
  maxAttempts?: number;
  /** Per-attempt socket timeouts, so a hung DynamoDB cannot eat the request deadline. */
  requestTimeoutMs?: number;
  connectionTimeoutMs?: number;
  counter?: CallCounter;
}

export interface Dynamo {
  /**
   * The low-level client: the per-poll item calls (limiter, grants), marshalled by their stores,
   * are signed and sent without the SDK's middleware (lib/state/dynamo-json.ts); its other commands
   * go through the SDK, the middleware resolved once per command type (`cacheMiddleware`).
   */
  client: DynamoDBClient;
  /** The document client, over a client of its own (lib-dynamodb refuses `cacheMiddleware`). */
  doc: DynamoDBDocumentClient;
  calls: CallCounter;
}

/** Static fake credentials for dynalite, so nothing local ever looks for AWS credentials. */
export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" } as const;
export const LOCAL_REGION = "us-east-1";

/** Client options for a local endpoint: fake credentials, fixed region. */
export function localDynamoOptions(endpoint: string): DynamoOptions {
  return { endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
}

export function createDynamo(options: DynamoOptions = {}): Dynamo {
  const calls = options.counter ?? new CallCounter();
  // The SDK handler's own defaults (keep-alive, 50 sockets for its calls), made here so the
  // direct calls open their connections with the same settings.
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 50 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 50 }),
  };
  const requestTimeoutMs = options.requestTimeoutMs ?? 3_000;
  const connectionTimeoutMs = options.connectionTimeoutMs ?? 1_000;
  const config: DynamoDBClientConfig = {
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.region ? { region: options.region } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    requestHandler: {
      requestTimeout: requestTimeoutMs,
      connectionTimeout: connectionTimeoutMs,
      httpAgent: agents.http,
      httpsAgent: agents.https,
    },
  };
  const counted = (c: DynamoDBClient) => {
    // Counted once per logical call (SDK retries are not separate calls here).
    c.middlewareStack.add(
      (next, context) => async (args) => {
        calls.increment(context.commandName ?? "unknown");
        return next(args);
      },
      { step: "initialize", name: "runtimeLogsCallCounter" },
    );
    return c;
  };
  // Resolving the middleware stack on every send is a third of a call's CPU (docs/quality.md P4);
  // the item commands skip the stack altogether and are counted as they are sent.
  const client = counted(
    new DirectDynamoDBClient(
      { ...config, cacheMiddleware: true },
      { agents, requestTimeoutMs, connectionTimeoutMs, onCall: (name) => calls.increment(name) },
    ),
  );
  // The document client sends through the same HTTP handler, so the SDK calls of both share its
  // connections; the direct calls keep their own, opened by the same agents. Closing `client`
  // closes them all.
  const docClient = counted(new DynamoDBClient({ ...config, requestHandler: client.config.requestHandler }));
  const doc = DynamoDBDocumentClient.from(docClient, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  return { client, doc, calls };
}
