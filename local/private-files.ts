/**
 * Credential files the simulators hand the local stack (kubeconfigs, OpenShell connection
 * documents): each written owner-only (0600, also when the file was already there).
 */
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Writes `text` for every id to `dir/<id><suffix>` (0600); returns the paths by id. */
export async function writePrivateFiles(
  dir: string,
  ids: Iterable<string>,
  suffix: string,
  text: (id: string) => string,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const id of ids) {
    const path = join(dir, `${id}${suffix}`);
    await writeFile(path, text(id), { mode: 0o600 });
    await chmod(path, 0o600);
    out[id] = path;
  }
  return out;
}
