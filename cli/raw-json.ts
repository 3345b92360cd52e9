/**
 * Slices of a response's raw JSON text, so `-o json` re-emits values exactly as the server wrote
 * them (number forms, key order, escapes) instead of re-serializing parsed numbers. Callers pass
 * text that JSON.parse already accepted, so the scanner only has to find boundaries.
 */

const WS = new Set([" ", "\t", "\n", "\r"]);

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.has(text[i]!)) i++;
  return i;
}

function skipString(text: string, i: number): number {
  // text[i] is the opening quote
  i++;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  throw new SyntaxError("unterminated string");
}

/** Index just past the value starting at `i` (after whitespace). */
function skipValue(text: string, i: number): number {
  i = skipWs(text, i);
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === "{" || c === "[") {
    let depth = 0;
    while (i < text.length) {
      const d = text[i];
      if (d === '"') {
        i = skipString(text, i);
        continue;
      }
      if (d === "{" || d === "[") depth++;
      else if (d === "}" || d === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    throw new SyntaxError("unterminated container");
  }
  while (i < text.length && !WS.has(text[i]!) && text[i] !== "," && text[i] !== "}" && text[i] !== "]") i++;
  return i;
}

/** The raw text of member `key` of the object `raw`, or undefined when absent or not an object. */
export function rawMember(raw: string, key: string): string | undefined {
  let i = skipWs(raw, 0);
  if (raw[i] !== "{") return undefined;
  i = skipWs(raw, i + 1);
  let found: string | undefined;
  while (i < raw.length && raw[i] !== "}") {
    const keyEnd = skipString(raw, i);
    const name = JSON.parse(raw.slice(i, keyEnd)) as string;
    i = skipWs(raw, keyEnd);
    i = skipWs(raw, i + 1); // the colon
    const end = skipValue(raw, i);
    // The last duplicate wins, as with JSON.parse.
    if (name === key) found = raw.slice(i, end);
    i = skipWs(raw, end);
    if (raw[i] === ",") i = skipWs(raw, i + 1);
  }
  return found;
}

/** The raw texts of the elements of the array `raw`, or undefined when it is not an array. */
export function rawElements(raw: string): string[] | undefined {
  let i = skipWs(raw, 0);
  if (raw[i] !== "[") return undefined;
  i = skipWs(raw, i + 1);
  const out: string[] = [];
  while (i < raw.length && raw[i] !== "]") {
    const end = skipValue(raw, i);
    out.push(raw.slice(i, end));
    i = skipWs(raw, end);
    if (raw[i] === ",") i = skipWs(raw, i + 1);
  }
  return out;
}

/** Removes insignificant whitespace (outside string literals). */
export function compactJson(raw: string): string {
  let out = "";
  let i = 0;
  let run = 0;
  while (i < raw.length) {
    const c = raw[i]!;
    if (c === '"') {
      i = skipString(raw, i);
    } else if (WS.has(c)) {
      out += raw.slice(run, i);
      i = skipWs(raw, i);
      run = i;
    } else {
      i++;
    }
  }
  return out + raw.slice(run);
}

/** Raw value at a member path (`["data", "records"]`), or undefined when any step is missing. */
export function rawPath(raw: string, path: readonly string[]): string | undefined {
  let current: string | undefined = raw;
  for (const key of path) {
    if (current === undefined) return undefined;
    current = rawMember(current, key);
  }
  return current;
}
