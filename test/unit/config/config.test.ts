import { describe, expect, it } from "vitest";
import { ConfigError, ENV, loadConfig } from "../../../lib/config.ts";
import { readEnabled } from "../../../lib/env.ts";

const base = {
  [ENV.registryTable]: "reg",
  [ENV.stateTable]: "state",
  [ENV.auditTable]: "audit",
  [ENV.cursorKeySecret]: "arn:aws:secretsmanager:eu-west-1:1:secret:cursor",
  [ENV.identityKeySecret]: "arn:aws:secretsmanager:eu-west-1:1:secret:identity",
};

describe("service configuration", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      enabled: true,
      tables: { registry: "reg", state: "state", audit: "audit" },
      cursorKey: { kind: "secret" },
      kubeconfigSecretPrefix: "runtime-logs/clusters/",
      allowInsecureClusters: false,
      auditRetentionDays: 400,
      limits: { burst: 10, ratePerSecond: 2, downloadCost: 5, principalInFlight: 4, agentInFlight: 16 },
    });
  });

  it("reads limits, the feature switch and local key files", () => {
    const config = loadConfig({
      ...base,
      [ENV.cursorKeySecret]: undefined,
      [ENV.identityKeySecret]: undefined,
      [ENV.cursorKeyFile]: "/k/c.json",
      [ENV.identityKeyFile]: "/k/i.json",
      [ENV.enabled]: "false",
      [ENV.limitBurst]: "2.5",
      [ENV.limitAgentInFlight]: "32",
    });
    expect(config.enabled).toBe(false);
    expect(config.cursorKey).toEqual({ kind: "file", path: "/k/c.json" });
    expect(config.limits.burst).toBe(2.5);
    expect(config.limits.agentInFlight).toBe(32);
  });

  it.each([
    [{ [ENV.registryTable]: undefined }, ENV.registryTable],
    [{ [ENV.enabled]: "yes" }, ENV.enabled],
    [{ [ENV.limitBurst]: "-1" }, ENV.limitBurst],
    [{ [ENV.limitPrincipalInFlight]: "1.5" }, ENV.limitPrincipalInFlight],
    [{ [ENV.cursorKeyFile]: "/also/a/file" }, ENV.cursorKeySecret],
    [{ [ENV.identityKeySecret]: undefined }, ENV.identityKeySecret],
    [{ [ENV.dynamodbEndpoint]: "not a url" }, ENV.dynamodbEndpoint],
  ])("fails at start naming the variable (%j)", (override, variable) => {
    const attempt = () => loadConfig({ ...base, ...override });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(variable);
  });

  it("never echoes a variable's value", () => {
    expect(() => loadConfig({ ...base, [ENV.limitBurst]: "s3cr3t-value" })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("s3cr3t-value") }),
    );
  });

  it.each([undefined, "", "true", "false", "yes", "TRUE", "0"])(
    "reads the feature switch %j as /health does (its zod-free reader)",
    (value) => {
      const env = { ...base, [ENV.enabled]: value };
      const health = () => readEnabled(env);
      if (value === "true" || value === "false" || !value) {
        expect(loadConfig(env).enabled).toBe(value !== "false");
        expect(health()).toBe(value !== "false");
      } else {
        expect(() => loadConfig(env)).toThrow(`${ENV.enabled}: must be true or false`);
        expect(health).toThrow(`${ENV.enabled}: must be true or false`);
      }
    },
  );
});
