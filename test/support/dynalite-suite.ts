/**
 * One dynalite for a test file (test/support/dynalite.ts): started before its tests, closed after
 * them. The object is filled in once `beforeAll` has run.
 */
import { afterAll, beforeAll } from "vitest";
import { type LocalDynamo, type StartOptions, startDynalite } from "./dynalite.ts";

export function dynaliteSuite(options: StartOptions = {}): LocalDynamo {
  const db = {} as LocalDynamo;
  beforeAll(async () => {
    Object.assign(db, await startDynalite(options));
  });
  afterAll(async () => {
    await db.close?.();
  });
  return db;
}
