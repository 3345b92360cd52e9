/**
 * Where test tools unpacked from npm packages live: `node_modules/.cache/runtime-logs/`, so
 * `npm ci` (which recreates node_modules) also clears them, and nothing lands in the work tree.
 */
import { fileURLToPath } from "node:url";

export const SUPPORT_CACHE_DIR = fileURLToPath(
  new URL("../../node_modules/.cache/runtime-logs/", import.meta.url),
).replace(/\/$/, "");
