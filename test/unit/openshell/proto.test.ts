/**
 * The committed client code is what protoc-gen-es makes of our `.proto` today (`npm run proto`),
 * and the field numbers are the ones of the OpenShell API.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  GetSandboxLogsRequestSchema,
  GetSandboxLogsResponseSchema,
  HealthResponseSchema,
  SandboxLogLineSchema,
} from "../../../lib/openshell/gen/openshell_pb.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const bin = (name: string) => join(ROOT, "node_modules/.bin", name);

describe("lib/openshell/proto", () => {
  it("generates exactly the committed client code", () => {
    const out = mkdtempSync(join(tmpdir(), "openshell-gen-"));
    try {
      const template = {
        version: "v2",
        plugins: [{ local: bin("protoc-gen-es"), out, opt: ["target=ts", "import_extension=ts"] }],
      };
      execFileSync(bin("buf"), ["generate", "--template", JSON.stringify(template)], {
        cwd: join(ROOT, "lib/openshell/proto"),
        stdio: "pipe",
      });
      expect(readFileSync(join(out, "openshell_pb.ts"), "utf8")).toBe(
        readFileSync(join(ROOT, "lib/openshell/gen/openshell_pb.ts"), "utf8"),
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("keeps the field numbers of the OpenShell logs API", () => {
    const numbers = (schema: { fields: readonly { name: string; number: number }[] }) =>
      Object.fromEntries(schema.fields.map((f) => [f.name, f.number]));
    expect(numbers(HealthResponseSchema)).toEqual({ status: 1, version: 2 });
    expect(numbers(GetSandboxLogsRequestSchema)).toEqual({
      sandbox_id: 1,
      lines: 2,
      since_ms: 3,
      sources: 4,
      min_level: 5,
    });
    expect(numbers(GetSandboxLogsResponseSchema)).toEqual({ logs: 1, buffer_total: 2 });
    expect(numbers(SandboxLogLineSchema)).toEqual({
      sandbox_id: 1,
      timestamp_ms: 2,
      level: 3,
      target: 4,
      message: 5,
      source: 6,
      fields: 7,
    });
  });
});
