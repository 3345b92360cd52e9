import { describe, expect, it } from "vitest";
import { createDynamo, localDynamoOptions } from "../../../lib/state/dynamo.ts";

describe("createDynamo", () => {
  it("sends the low-level and the document client through one HTTP handler (one connection pool)", () => {
    const { client, doc } = createDynamo(localDynamoOptions("http://127.0.0.1:9"));
    try {
      expect(doc.config.requestHandler).toBe(client.config.requestHandler);
    } finally {
      client.destroy();
    }
  });
});
