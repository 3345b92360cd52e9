/**
 * `argv`: command-line secrets (`--password v`, `-u user:pass`, `curl -U`, `mysql -pSECRET`,
 * `redis-cli -a`, `sshpass -p`, `vault login TOKEN`, `docker login -p`, `openssl -k`,
 * `-passin pass:…`) while ordinary flags survive (`mkdir -p`, `sort -u`).
 */

import { commandEnd, wordEnd } from "../grammar.ts";
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { type Found, isOneMark, isPlaceholder, isSpace, skipBlanks, spliceFound } from "../scan.ts";

const LONG_FLAGS = /--(?:password|passwd|token|api-key|apikey|with-token)(?=[= ]|$)/g;
/** curl's credentials, `user:password`: `-u`/`--user`, and `-U`/`--proxy-user` for its proxy. */
const USER_FLAGS = /(?:^|\s)(?:-u|--user|-U|--proxy-user)(?=[= ])/g;
const MYSQL = /\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b/;
const MYSQL_P = /(?:^|\s)-p/g;
const REDIS = /\bredis-cli\b/;
const REDIS_A = /\s(?:-a|--pass)(?= )/g;
const SSHPASS = /\bsshpass\b/;
const SSHPASS_P = /\s-p(?= )/g;
const VAULT = /\bvault\s+login\s+/g;
/** Registry and cloud logins whose `-p` is the password (`docker login -u u -p v`, `az login -p v`). */
const LOGIN = /\b(?:docker|podman|buildah|skopeo|nerdctl|oras|crane|az|helm\s+registry)\s+login\b/;
const LOGIN_P = /\s-p(?= )/g;
/** OpenSSL's passphrase arguments: `-k v`, and `pass:v` after `-pass`, `-passin`, `-passout`. */
const OPENSSL = /\bopenssl\b/;
const OPENSSL_K = /\s-k(?= )/g;
const PASS_SOURCE = /\s-pass(?:in|out)?\s+pass:/g;
/** MongoDB's shells and tools take `-p password`; SQL Server's take `-P password`. */
const MONGO = /\bmongo(?:sh|dump|restore|export|import|stat|top)?\b/;
const MONGO_P = /\s-p(?= )/g;
const SQLCMD = /\b(?:sqlcmd|bcp|osql)\b/;
const SQLCMD_P = /\s-P(?= )/g;
/** RabbitMQ's `add_user NAME PASSWORD` and `change_password NAME PASSWORD`. */
const RABBITMQ = /\brabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+/g;
/** Redis's `AUTH [user] password`: after `redis-cli`, or as MONITOR prints it (`"AUTH" "password"`). */
const REDIS_AUTH = /\sAUTH[ \t]+/g;
const MONITOR_AUTH = /"AUTH"[ \t]+/g;
/** `echo v | … --password-stdin`: what is echoed into a login that reads its password from stdin. */
const ECHO = /\b(?:echo|printf)[ \t]+(?:-[a-zA-Z]+[ \t]+)*/g;
/** The commands named above, found in one native scan first: most text names none of them. */
const COMMANDS =
  /mysql|mariadb|redis-cli|sshpass|vault|login|openssl|mongo|sqlcmd|bcp|osql|rabbitmqctl|AUTH|password-stdin/;

function argvRule(s: string): string {
  const found: Found[] = [];
  const add = (start: number, end: number): number => {
    found.push([start, end, M.argv]);
    return end;
  };
  /** `--flag=value` or `--flag value`; a following flag or a redirect is not a value. Returns the end. */
  const valueAfter = (j: number): number => {
    let v = j;
    if (s.charCodeAt(v) === /* = */ 61) v++;
    else v = skipBlanks(s, v);
    if (v >= s.length) return j;
    const c = s.charCodeAt(v);
    if (c === /* - */ 45 || c === /* < */ 60 || c === /* | */ 124) return j;
    const end = wordEnd(s, v);
    if (isOneMark(s, v, end)) return end;
    // A quoted word is masked inside its quotes; one that goes on past them (`'ab'cd`) whole.
    const q = s.charCodeAt(v);
    if ((q === /* " */ 34 || q === /* ' */ 39) && s.charCodeAt(end - 1) === q && end - 1 > v + 1)
      return add(v + 1, end - 1);
    return end > v ? add(v, end) : j;
  };
  // No `includes("--")` first: searching a short word is slow where its first character is
  // frequent (`a-a-a-…`), the whole pattern natively is not.
  LONG_FLAGS.lastIndex = 0;
  while (LONG_FLAGS.test(s)) LONG_FLAGS.lastIndex = valueAfter(LONG_FLAGS.lastIndex);
  USER_FLAGS.lastIndex = 0;
  while (USER_FLAGS.test(s)) {
    let v = USER_FLAGS.lastIndex;
    v = s.charCodeAt(v) === /* = */ 61 ? v + 1 : skipBlanks(s, v);
    const end = wordEnd(s, v);
    // `user:password`: a colon inside the word (not searched past it: `-u a -u a …` has none).
    let colon = v + 1;
    while (colon < end - 1 && s.charCodeAt(colon) !== /* : */ 58) colon++;
    if (colon < end - 1) USER_FLAGS.lastIndex = add(v, end);
  }
  const commands = COMMANDS.test(s);
  const mysql = commands && (s.includes("mysql") || s.includes("mariadb")) ? MYSQL.exec(s) : null;
  if (mysql !== null) {
    MYSQL_P.lastIndex = mysql.index;
    while (MYSQL_P.test(s)) {
      const j = MYSQL_P.lastIndex;
      const c = s.charCodeAt(j);
      if (c === /* space */ 32) {
        // `-p value`: mysql would prompt and take a database name, but a secret may sit there.
        const v = skipBlanks(s, j);
        const end = wordEnd(s, v);
        if (end > v && s.charCodeAt(v) !== /* - */ 45 && !/^\d+$/.test(s.slice(v, end)))
          MYSQL_P.lastIndex = add(v, end);
      } else if (j < s.length && !isSpace(c) && !isPlaceholder(c)) {
        MYSQL_P.lastIndex = add(j, wordEnd(s, j));
      }
    }
  }
  /**
   * After `command` appears, the value of each `flag` is a secret (`redis-cli -a`, `sshpass -p`), up
   * to the end of that command (`;`, `&`, `|`): `docker login ok; mkdir -p /x` keeps `/x`. `hint`:
   * a word the command holds, looked for first.
   */
  const flagValuesAfter = (command: RegExp, flag: RegExp, hint = ""): void => {
    const at = commands && s.includes(hint) ? command.exec(s) : null;
    if (at === null) return;
    const stop = commandEnd(s, at.index);
    flag.lastIndex = at.index;
    while (flag.test(s) && flag.lastIndex < stop) flag.lastIndex = valueAfter(flag.lastIndex);
  };
  flagValuesAfter(REDIS, REDIS_A, "redis-cli");
  flagValuesAfter(MONGO, MONGO_P, "mongo");
  flagValuesAfter(SQLCMD, SQLCMD_P);
  /**
   * After `re` matches (from `from`, up to `until`), its words up to the end of the command
   * (`AUTH user password`), or one word.
   */
  const wordsAfter = (word: string, re: RegExp, toCommandEnd: boolean, from = 0, until = s.length): void => {
    if (!commands || !s.includes(word)) return;
    re.lastIndex = from;
    while (re.test(s) && re.lastIndex <= until) {
      const v = re.lastIndex;
      let end = toCommandEnd ? commandEnd(s, v) : wordEnd(s, v);
      while (end > v && isSpace(s.charCodeAt(end - 1))) end--;
      re.lastIndex = end > v && !isOneMark(s, v, end) ? add(v, end) : Math.max(v, re.lastIndex);
    }
  };
  wordsAfter("rabbitmqctl", RABBITMQ, false);
  wordsAfter("AUTH", MONITOR_AUTH, true);
  const redis = commands && s.includes("AUTH") ? REDIS.exec(s) : null;
  if (redis !== null) {
    wordsAfter("AUTH", REDIS_AUTH, true, redis.index, commandEnd(s, redis.index));
  }
  if (commands && s.includes("--password-stdin")) {
    // Only what is echoed into the pipe: the echo's words up to `|`, if a login there reads stdin.
    ECHO.lastIndex = 0;
    /** The first `--password-stdin` at or after the pipe looked at (pipes come in order). */
    let login = s.indexOf("--password-stdin");
    while (ECHO.test(s)) {
      const v = ECHO.lastIndex;
      const pipe = s.indexOf("|", v);
      if (pipe < 0) break;
      if (login < pipe) login = s.indexOf("--password-stdin", pipe);
      if (login < 0) break;
      const stop = commandEnd(s, pipe + 1);
      let end = pipe;
      while (end > v && isSpace(s.charCodeAt(end - 1))) end--;
      if (login < stop && end > v && !isOneMark(s, v, end)) add(v, end);
      ECHO.lastIndex = pipe + 1;
    }
  }
  flagValuesAfter(SSHPASS, SSHPASS_P, "sshpass");
  flagValuesAfter(LOGIN, LOGIN_P, "login");
  flagValuesAfter(OPENSSL, OPENSSL_K, "openssl");
  if (commands && s.includes("pass:")) {
    PASS_SOURCE.lastIndex = 0;
    while (PASS_SOURCE.test(s)) {
      const v = PASS_SOURCE.lastIndex;
      const end = wordEnd(s, v);
      PASS_SOURCE.lastIndex = end > v && !isOneMark(s, v, end) ? add(v, end) : v;
    }
  }
  if (commands && s.includes("vault")) {
    VAULT.lastIndex = 0;
    while (VAULT.test(s)) {
      const v = VAULT.lastIndex;
      const end = wordEnd(s, v);
      const word = s.slice(v, end);
      if (end > v && !word.startsWith("-") && !word.includes("=")) VAULT.lastIndex = add(v, end);
    }
  }
  // Several scans may find the same value.
  return spliceFound(s, found);
}

export const argv: Rule = {
  name: "argv",
  words: ["--", "-u", "-p", "-a", "vault", "rabbitmqctl", "auth"],
  apply: argvRule,
};
