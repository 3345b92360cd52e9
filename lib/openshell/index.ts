/** The OpenShell sandbox driver's public surface (the gRPC module itself loads lazily). */
export {
  CONNECTION_CACHE_MS,
  type ConnectionStore,
  createConnectionStore,
  isLoopbackHost,
  OPENSHELL_SECRET_PREFIX,
  type OpenShellConnection,
  parseConnectionDocument,
} from "./connection.ts";
export {
  createSandboxDriver,
  type GatewayLookup,
  SANDBOX_CALL_TIMEOUT_MS,
  SANDBOX_MAX_LINES,
  type SandboxDriver,
  type SandboxDriverOptions,
} from "./driver.ts";
export { GRPC_CODES, type GrpcCodeName, grpcCodeName, grpcFailure } from "./errors.ts";
export type * from "./types.ts";
