/**
 * The log-page pipeline (pipeline.md): pure, no I/O, no clock reads (time is a parameter).
 *
 * How the logs use case drives it, per request:
 * 1. `verifyCursor(token, {binding, keys, now})` right after authorization: `{status: "valid", state}`
 *    or `{status: "expired", state}`; anything else throws `RUNTIME_LOGS_CURSOR_INVALID`.
 * 2. After the runtime description, decide the view: no cursor, expired, another Pod than
 *    `cursorStream(state).pod`, another `previous`, or the Pod gone → a new (audited) view with
 *    `cursor = null` (and `expired` for an expired one). Same Pod name with another UID or restart
 *    count stays in the view: the page reports `stream_replaced`.
 * 3. `planLogRead({cursor, pod, podUid, restartCount, previous, tailLines, sinceSeconds?, sinceTime?, now})`
 *    → `{tailLines, sinceTime?, sinceSeconds?, limitBytes, resume}` for `KubeDriver.readLog`.
 * 4. `buildLogPage({chunk, cursor, expired, view: {binding, tailLines, minLevel?, source}, deploymentId,
 *    requestId, now, keys: {cursor, identity}, namespaceId})` → `{page, cursor, body}`: `page` is the
 *    `data` object, `body` the exact serialized envelope (≤ 512 KiB), `cursor` the new token.
 *    Downloads pass `maxBytes: DOWNLOAD_BUDGET_BYTES` and render with `renderDownload({agentId}, page)`;
 *    the file name comes from `downloadFileName`.
 * `redactText` / `redactEventText` serve every other outgoing string (Event text, termination
 * messages); `pseudonymize` is the identity pseudonym restart attribution uses too.
 */
export {
  type EventTextHints,
  isPseudonym,
  type PseudonymKind,
  pseudonymize,
  REDACTION_KINDS,
  type RedactionKind,
  redactEventText,
  redactText,
  WITHHELD_IDENTITY,
} from "../redact/index.ts";
export { levelFromName, levelRank, plainLevel } from "./classify.ts";
export { FUTURE_MS, isIdleRead, PROBE_TAIL_LINES } from "./clock.ts";
export {
  bindingHash,
  CURSOR_MAX_SKEW_MS,
  CURSOR_TTL_MS,
  MAX_CURSOR_CHARS,
  signCursor,
  type VerifiedCursor,
  verifyCursor,
} from "./cursor.ts";
export { type DownloadMeta, downloadFileName, MAX_DOWNLOAD_BYTES, renderDownload } from "./download.ts";
export { REMEDIES } from "./gaps.ts";
export { RESUME_TAIL_LINES, type SplitChunk, splitRead } from "./lines.ts";
export {
  type BuildLogPageInput,
  type BuiltPage,
  buildLogPage,
  DOWNLOAD_BUDGET_BYTES,
  PAGE_BUDGET_BYTES,
  type PageView,
} from "./page.ts";
export {
  type CursorStream,
  cursorStream,
  type LogReadInput,
  type LogReadPlan,
  planLogRead,
  sinceSecondsFor,
} from "./plan.ts";
export {
  type SandboxCursorState,
  signSandboxCursor,
  type VerifiedSandboxCursor,
  verifySandboxCursor,
} from "./sandbox-cursor.ts";
export { renderSandboxDownload } from "./sandbox-download.ts";
export {
  buildSandboxPage,
  planSandboxRead,
  SANDBOX_REMEDIES,
  SANDBOX_RING_CAPACITY,
  type SandboxBuiltPage,
  type SandboxPageInput,
} from "./sandbox-page.ts";
export type {
  CursorBinding,
  CursorKeys,
  CursorState,
  FieldValue,
  GapReason,
  GapRecord,
  IdentityKey,
  IdentityKeys,
  KeyRing,
  LineRecord,
  LogPage,
  LogRecord,
  LogStream,
  RecordLevel,
  SecretKey,
  WithheldRecord,
} from "./types.ts";
