/**
 * Positional credentials (masked as `key-value`: the API names the argument as a key would): the
 * password argument of well-known APIs that take it by position, not by name. MongoDB's
 * `db.auth("u", "v")`, Python's `HTTPBasicAuth('u', 'v')` and `smtp.login(u, "v")`, Go's
 * `url.UserPassword("u", "v")` and `smtp.PlainAuth("", "u", "v", host)`, JDBC's
 * `DriverManager.getConnection(url, "u", "v")`, PHP's `new PDO($dsn, 'u', 'v')` and
 * `mysqli_connect('h', 'u', 'v')`, .NET's `new NetworkCredential("u", "v")`… A string literal in
 * that place is masked, in any quote and at any escaping depth; a variable there names no secret.
 */
import { mayOpenString, pastQuote, stringClose, structureClose, valueAt } from "../grammar.ts";
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { isOneMark, skipBlanks, splice } from "../scan.ts";

/**
 * Each API by its name as a call writes it (a method's with its `.`), and the index of its password
 * argument (0 is the first). Facts from each API's documentation.
 */
const APIS: ReadonlyArray<readonly [name: string, index: number]> = [
  // MongoDB's shell
  [".auth", 1],
  [".changeUserPassword", 1],
  // Python: requests, httpx, aiohttp, smtplib/ftplib/imaplib, pika, python-ldap, paramiko
  ["HTTPBasicAuth", 1],
  ["HTTPDigestAuth", 1],
  ["HTTPProxyAuth", 1],
  ["BasicAuth", 1],
  ["DigestAuth", 1],
  [".login", 1],
  ["PlainCredentials", 1],
  [".simple_bind_s", 1],
  [".simple_bind", 1],
  [".bind_s", 1],
  [".auth_password", 1],
  // Go: net/url, net/http, net/smtp
  ["UserPassword", 1],
  ["SetBasicAuth", 1],
  ["PlainAuth", 2],
  ["CRAMMD5Auth", 1],
  // Java: JDBC, java.net, Apache HttpClient, Spring Security, JCR, OkHttp
  ["getConnection", 2],
  ["PasswordAuthentication", 1],
  ["UsernamePasswordCredentials", 1],
  ["UsernamePasswordAuthenticationToken", 1],
  ["SimpleCredentials", 1],
  ["Credentials.basic", 1],
  // PHP: PDO, mysqli, the old mysql extension, LDAP; Laravel's HTTP client
  ["PDO", 2],
  ["mysqli", 2],
  ["mysqli_connect", 2],
  ["real_connect", 2],
  ["mysql_connect", 2],
  ["mysql_pconnect", 2],
  ["ldap_bind", 2],
  ["withBasicAuth", 1],
  ["withDigestAuth", 1],
  // .NET
  ["NetworkCredential", 1],
];

const INDEX = new Map(APIS.map(([name, index]) => [name.replace(/^\./, ""), index]));

/** A name of `APIS` and the `(` right after it (a method's after its `.`; a function's not inside a word). */
const CALL = new RegExp(
  `(?:\\.(${APIS.filter(([n]) => n.startsWith("."))
    .map(([n]) => n.slice(1))
    .join("|")})|\\b(${APIS.filter(([n]) => !n.startsWith("."))
    .map(([n]) => n.replaceAll(".", "\\."))
    .join("|")}))\\(`,
  "g",
);

/** How far a call's arguments are read for the password's. */
const ARGUMENTS_MAX = 512;

/**
 * Where argument `index` of the call whose arguments start at `i` starts, or -1 (fewer arguments,
 * or none found within ARGUMENTS_MAX): commas inside strings (any quote, any escaping depth) and
 * inside brackets separate nothing.
 */
function argumentStart(s: string, i: number, index: number): number {
  const stop = Math.min(s.length, i + ARGUMENTS_MAX);
  let n = 0;
  for (let p = i; p < stop; p++) {
    const c = s.charCodeAt(p);
    if (c === /* , */ 44) {
      if (++n === index) return skipBlanks(s, p + 1);
    } else if (c === /* ) */ 41 || c === /* ; */ 59 || c === /* \n */ 10) return -1;
    else if (c === /* ( */ 40 || c === /* [ */ 91 || c === /* { */ 123) {
      const close = structureClose(s, p);
      if (close < 0) return -1;
      p = close;
    } else if (mayOpenString(c)) {
      const close = stringClose(s, p, i);
      if (close === -1) return -1;
      if (close >= 0) p = pastQuote(s, close) - 1;
    }
  }
  return -1;
}

function callsRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  CALL.lastIndex = 0;
  for (let m = CALL.exec(s); m !== null; m = CALL.exec(s)) {
    const index = INDEX.get(m[1] ?? m[2] ?? "")!;
    const at = argumentStart(s, CALL.lastIndex, index);
    if (at < 0) continue;
    const value = valueAt(s, at);
    if (value === null || !value.quoted || value.end <= value.start || isOneMark(s, value.start, value.end))
      continue;
    spans.push(value.start, value.end);
    reps.push(M["key-value"]);
    CALL.lastIndex = value.end;
  }
  return splice(s, spans, reps);
}

export const calls: Rule = {
  name: "calls",
  // Each name's call ends in one of these: its last letters and the `(` (`…Auth(`, `…Password(`,
  // `…bind(`; `…n(` for `login(`, `getConnection(`, `…Token(`), rare in log text, where the names'
  // words (`password`, `auth`, `login`) are common and would run the rule on most lines.
  words: ["th(", "rd(", "nd(", "n(", "_s(", "ls(", "ct(", "al(", "ic(", "do(", "li("],
  apply: callsRule,
};
