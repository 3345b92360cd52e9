/**
 * Secrets the argv rule's commands are given beyond a flag's value, generated over the grammar (every
 * quoting, random blanks, the places a command sits on a line), each with near misses that stay byte
 * for byte:
 * - HTTPie's and xh's `-a` at the end of a cluster (`http -va u:v`, spaced or attached); not a user
 *   without a password, nor `a` taking another value (`-av`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactText } from "../../../lib/redact/index.ts";
import {
  anyCase,
  blank,
  CONTEXTS,
  closedContext,
  context,
  leavesEach,
  masksEach,
  secretWordAfter,
} from "./argv-words.ts";
import { segment } from "./shapes.ts";

/** HTTPie's and xh's options that take no value, for a cluster before `-a`. */
const HTTPIE_FLAG_LETTERS = "vFIjfxhbmdcqS46";
const HTTPIE_USERS = ["alice:", "ci-bot:", "admin@example.com:"];
const HTTPIE_TAILS = [
  "example.org",
  "POST api.example.com/items name=x",
  ":8080/health",
  "https://api.example/v1",
];

/**
 * `http -va user:password …`: a cluster of one to three value-less letters, then `a`, its value spaced
 * or attached (the cluster one space after the name: see the report for other blanks there).
 */
const httpieCluster = fc
  .tuple(
    fc.constantFrom("http", "https", "xh", "xhs"),
    fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
    fc.array(fc.constantFrom(...HTTPIE_FLAG_LETTERS), { minLength: 1, maxLength: 3 }),
    secretWordAfter(HTTPIE_USERS),
    fc.boolean(),
    blank,
    fc.constantFrom(...HTTPIE_TAILS),
    context,
  )
  .map(([name, upper, letters, user, attached, b, tail, at]) => ({
    text: CONTEXTS[at]!(
      `${anyCase(name, upper)} -${letters.join("")}a${attached ? "" : b}${user.text}${b}${tail}`,
    ),
    canaries: user.canaries,
    family: `httpie/${name}`,
  }));

/** Clusters that only look like one with a password: a user alone (HTTPie prompts), `a` taking `v`, another letter's value. */
const HTTPIE_NEAR_MISSES: Array<(u: string, b: string) => string> = [
  (u, b) => `http -va${b}${u} example.org`,
  (u) => `xh -Fa ${u} https://api.example/v1`,
  (_, b) => `http -av${b}example.org`,
  (u, b) => `https -vo${b}${u}.json example.org`,
  (u, b) => `http -vj${b}example.org name=${u}`,
  (u, b) => `xhs -vI${b}api.example.com x-user:${u}`,
];

describe("argv: HTTPie's and xh's -a at the end of a cluster", () => {
  it("is masked whole: `-va user:password`, spaced or attached (generated)", () => {
    masksEach(httpieCluster, 1200);
  });

  it("stays byte for byte without a password (generated near misses)", () => {
    const line = fc
      .tuple(fc.integer({ min: 0, max: HTTPIE_NEAR_MISSES.length - 1 }), segment, blank, closedContext)
      .map(([form, user, b, at]) => CONTEXTS[at]!(HTTPIE_NEAR_MISSES[form]!(user.toLowerCase(), b)));
    leavesEach(line, 600);
  });

  it.each([
    ["http -va alice:hunter2xyz example.org", "http -va [redacted:argv] example.org"],
    ["http -vva alice:hunter2xyz example.org", "http -vva [redacted:argv] example.org"],
    ["http -Faalice:hunter2xyz example.org", "http -Fa[redacted:argv] example.org"],
    ["xh -vaalice:hunter2xyz example.org", "xh -va[redacted:argv] example.org"],
    // Near misses.
    ["http -va alice example.org", "http -va alice example.org"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});
