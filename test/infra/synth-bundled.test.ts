/**
 * The stack synthesized with bundling on, as `cdk deploy` does it: every function gets its own
 * asset holding its own entry and chunks (a shared bundling cache once gave all six functions the
 * first one's code), and the handler `index.handler` names a module that is there.
 */
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FUNCTIONS } from "../../infra/functions.ts";
import { resources, type Synthesized, synth } from "./synth.ts";

let synthesized: Synthesized;

beforeAll(() => {
  synthesized = synth({ "aws:cdk:bundling-stacks": ["**"] });
}, 180_000);

/** The function entry (`functions/<name>.ts`) an asset's source map names. */
function entryOf(assetDir: string): string[] {
  const map = JSON.parse(readFileSync(path.join(assetDir, "index.mjs.map"), "utf8")) as { sources: string[] };
  return map.sources
    .map((s) => /(?:^|\/)functions\/([\w-]+)\.ts$/.exec(s)?.[1])
    .filter((n) => n !== undefined);
}

describe("the stack's function code, bundled", () => {
  it("gives every function an asset of its own with its own entry module", () => {
    expect(synthesized.error).toBeUndefined();
    const functions = resources(synthesized.template, "AWS::Lambda::Function").filter(
      ([, r]) => r.Properties.Handler === "index.handler",
    );
    const entries = functions.map(([, r]) => {
      const key = (r.Properties.Code as { S3Key: string }).S3Key;
      const dir = path.join(synthesized.outdir, `asset.${key.replace(/\.zip$/, "")}`);
      expect(existsSync(path.join(dir, "index.mjs"))).toBe(true);
      return entryOf(dir);
    });
    expect(entries.map((e) => e.length)).toEqual(entries.map(() => 1));
    expect(entries.flat().sort()).toEqual(FUNCTIONS.map((f) => f.name).sort());
  });
});
