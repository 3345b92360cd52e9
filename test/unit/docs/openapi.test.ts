/**
 * docs/openapi.json is generated from the contract (`npm run docs`): the committed file must be
 * exactly what the generator prints now, and must say what the contract enforces.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CATALOG } from "../../../lib/api/errors.ts";
import { LOG_QUERY_PARAMETERS } from "../../../lib/api/schemas.ts";
import { ROUTES } from "../../../lib/service/routes.ts";
import { buildOpenApi, OPENAPI_FILE, renderOpenApi } from "../../../scripts/openapi.ts";

describe("docs/openapi.json", () => {
  it("is what `npm run docs` generates from the contract today (run it after changing lib/api)", () => {
    expect(readFileSync(OPENAPI_FILE, "utf8")).toBe(renderOpenApi());
  });

  it("lists every route, the log query's parameters and every error code", () => {
    const doc = buildOpenApi() as {
      openapi: string;
      paths: Record<string, { get: { parameters?: Array<{ name: string; in: string; schema: unknown }> } }>;
      components: {
        schemas: { ErrorEnvelope: { properties: { error: { properties: { code: { enum: string[] } } } } } };
      };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(
      Object.values(ROUTES)
        .map((r) => r.replace("GET ", ""))
        .sort(),
    );
    const logs = doc.paths[ROUTES.logs.replace("GET ", "")]!.get.parameters!;
    expect(logs.filter((p) => p.in === "query").map((p) => p.name)).toEqual(LOG_QUERY_PARAMETERS);
    const download = doc.paths[ROUTES.download.replace("GET ", "")]!.get.parameters!;
    expect(download.map((p) => p.name)).not.toContain("cursor");
    expect(logs.find((p) => p.name === "namespaceId")?.schema).toMatchObject({ pattern: expect.any(String) });
    expect(doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum).toEqual(
      Object.keys(ERROR_CATALOG),
    );
  });
});
