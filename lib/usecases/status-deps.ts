/** The status function's dependencies: the service's, plus restart attribution once it is wired. */
import type { ServiceDeps } from "../service/deps.ts";
import type { StatusDeps } from "./status.ts";

export const statusDeps = (deps: ServiceDeps): StatusDeps => deps;
