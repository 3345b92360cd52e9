/**
 * Colours for terminal output: only when the stream is a terminal, unless `FORCE_COLOR` asks for
 * them (it wins over `NO_COLOR`, as in Node itself); `NO_COLOR` turns them off. Painting uses
 * `util.styleText` and is applied after escaping, so no colour code ever comes from the server.
 */
import { styleText } from "node:util";

type Format = Parameters<typeof styleText>[0];

export interface Style {
  readonly enabled: boolean;
  paint: (format: Format, text: string) => string;
}

export function colorEnabled(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return isTTY && env.TERM !== "dumb";
}

export function makeStyle(enabled: boolean): Style {
  return {
    enabled,
    paint: enabled
      ? (format, text) => styleText(format, text, { validateStream: false })
      : (_f, text) => text,
  };
}

/** Colours that tell streams apart in a merged view (stern-like), in order of first appearance. */
export const STREAM_COLORS: readonly Format[] = ["cyan", "magenta", "green", "yellow", "blue", "red"];
