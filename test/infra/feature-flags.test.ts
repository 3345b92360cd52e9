/**
 * cdk.json sets every feature flag aws-cdk-lib recommends, at its recommended value (the list the
 * CLI compares against when it warns "N feature flags are not configured"), so `cdk synth` warns of
 * none; an aws-cdk-lib upgrade that adds a flag fails here until cdk.json takes it. The synth tests
 * run with this same context (test/infra/synth.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { CDK_JSON_CONTEXT } from "./synth.ts";

const require = createRequire(import.meta.url);
const RECOMMENDED: Record<string, unknown> = JSON.parse(
  readFileSync(require.resolve("aws-cdk-lib/recommended-feature-flags.json"), "utf8"),
);

describe("cdk.json feature flags", () => {
  it("sets every recommended flag of this aws-cdk-lib at its recommended value", () => {
    expect(Object.keys(RECOMMENDED).length).toBeGreaterThan(50);
    const unset = Object.keys(RECOMMENDED).filter((flag) => !(flag in CDK_JSON_CONTEXT));
    expect(unset).toEqual([]);
    for (const [flag, value] of Object.entries(RECOMMENDED))
      expect(CDK_JSON_CONTEXT[flag], flag).toEqual(value);
  });

  it("keeps the app's own switches beside them", () => {
    expect(CDK_JSON_CONTEXT).toMatchObject({
      runtimeLogsEnabled: true,
      authorizer: "iam",
      withConsole: false,
    });
  });
});
