/**
 * Label and field selectors as the API server parses them. Labels: `a=b`, `a==b`, `a!=b`, `a`,
 * `!a`, `a in (x,y)`, `a notin (x,y)`, comma-joined. Fields: `f=v`, `f==v`, `f!=v` over the fields a
 * resource supports. A malformed selector is a `SelectorError` (a 400 Status upstream).
 */

import { isDnsSubdomain } from "../../lib/api/ids.ts";

export class SelectorError extends Error {
  override name = "SelectorError";
}

export type Matcher<T> = (item: T) => boolean;

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;

function checkKey(key: string): void {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if ((prefix !== null && !isDnsSubdomain(prefix)) || !NAME.test(name)) {
    throw new SelectorError(`unable to parse requirement: invalid label key "${key}"`);
  }
}

function checkValue(value: string): void {
  if (value !== "" && !NAME.test(value)) {
    throw new SelectorError(`unable to parse requirement: invalid label value: "${value}"`);
  }
}

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

export function parseLabelSelector(text: string): Matcher<Record<string, string>> {
  if (text.trim() === "") return () => true;
  const terms = splitTerms(text).map((raw) => {
    const term = raw.trim();
    if (term === "") throw new SelectorError(`unable to parse requirement: empty term in "${text}"`);
    const set = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(term);
    if (set) {
      const key = set[1] as string;
      checkKey(key);
      const values = new Set((set[3] as string).split(",").map((v) => v.trim()));
      values.forEach(checkValue);
      const negate = set[2] === "notin";
      return (labels: Record<string, string>) => {
        const v = labels[key];
        return negate ? v === undefined || !values.has(v) : v !== undefined && values.has(v);
      };
    }
    const eq = /^([^=!\s]+)\s*(==|=|!=)\s*([^=!\s]*)$/.exec(term);
    if (eq) {
      const key = eq[1] as string;
      const value = eq[3] as string;
      checkKey(key);
      checkValue(value);
      return eq[2] === "!="
        ? (labels: Record<string, string>) => labels[key] !== value
        : (labels: Record<string, string>) => labels[key] === value;
    }
    const exists = /^(!?)\s*([^=!\s()]+)$/.exec(term);
    if (exists) {
      const key = exists[2] as string;
      checkKey(key);
      return exists[1] === "!"
        ? (labels: Record<string, string>) => !(key in labels)
        : (labels: Record<string, string>) => key in labels;
    }
    throw new SelectorError(`unable to parse requirement: "${term}"`);
  });
  return (labels) => terms.every((t) => t(labels));
}

/** Splits on unescaped `sep`, unescaping `\,` `\=` `\\`. */
function splitEscaped(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\" && i + 1 < text.length) {
      cur += ch + (text[i + 1] as string);
      i++;
    } else if (ch === sep) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function unescapeValue(text: string): string {
  return text.replace(/\\(.)/g, "$1");
}

/** `fields` maps each supported field name to its value on an item. */
export function parseFieldSelector<T>(text: string, fields: Record<string, (item: T) => string>): Matcher<T> {
  if (text.trim() === "") return () => true;
  const terms = splitEscaped(text, ",").map((raw) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/s.exec(raw.trim().replace(/\\=/g, "\u0000"));
    if (!m) throw new SelectorError(`invalid selector: '${text}'; can't understand '${raw}'`);
    const field = (m[1] as string).trim();
    const value = unescapeValue((m[3] as string).replace(/\u0000/g, "="));
    const get = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (!get) throw new SelectorError(`field label not supported: ${field}`);
    return m[2] === "!=" ? (item: T) => get(item) !== value : (item: T) => get(item) === value;
  });
  return (item) => terms.every((t) => t(item));
}
