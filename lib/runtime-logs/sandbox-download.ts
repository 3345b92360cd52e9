/**
 * The sandbox download (api.md § Download): the same record lines as a container download under a
 * header that names the gateway, the sandbox and the instance read.
 */
import { clean, MAX_DOWNLOAD_BYTES, recordLine } from "./download.ts";
import type { LogPage } from "./types.ts";

export function renderSandboxDownload(meta: { agentId: string }, page: LogPage): string {
  const s = page.stream;
  const sandbox = s !== null && "sandboxId" in s ? s : null;
  const header =
    `# agent=${meta.agentId} deployment=${page.deploymentId} source=sandbox ` +
    `gateway=${sandbox?.gatewayId ?? "-"} sandbox=${sandbox?.sandbox ?? "-"} sandboxId=${sandbox?.sandboxId ?? "-"} ` +
    `observedAt=${page.observedAt} withheld=${page.withheld}`;
  const out = [clean(header)];
  for (const r of page.records) out.push(clean(recordLine(r)));
  const body = `${out.join("\n")}\n`;
  if (Buffer.byteLength(body, "utf8") >= MAX_DOWNLOAD_BYTES)
    throw new Error("download body exceeds its size limit");
  return body;
}
