/**
 * `key-value`: the value of a secret-named key, in every form of the grammar (see `grammar.ts`):
 * bare, quoted at any escaping depth, bracketed (`config[password]`), URL-encoded, XML elements and
 * name/value attributes, SQL (`PASSWORD '…'`, `IDENTIFIED BY '…'`), flags (`--db-pass v`) and env
 * names with any affix or case (`DB_PASS`, `PGPASSWORD`, `authKey`, `encryptionKey`).
 */
import {
  isClosing,
  isEscapedLtAt,
  isOperatorAt,
  isQuote,
  pastQuote,
  plainValueAfterKey,
  quoteWordLength,
  type ValueSpan,
  valueAfterKey,
  valueAt,
  wordAt,
  wordEnd,
} from "../grammar.ts";
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { isKeyChar, isLetter, isOneMark, isSpace, skipBlanks, spaceFrom, splice } from "../scan.ts";

const MAX_KEY = 128;

/** The letters of the escapes that end a line or a field: `\n`, `\r`, `\t`. */
const isEscapeLetter = (c: number): boolean => c === /* n */ 110 || c === /* r */ 114 || c === /* t */ 116;

/**
 * The word in other languages, as ASCII identifiers spell it (German, Dutch, Portuguese, Spanish,
 * Polish, Swedish, Finnish, Turkish; French's `mot_de_passe` holds `pass`): trigger words and key parts.
 */
const OTHER_LANGUAGES = [
  "kennwort",
  "wachtwoord",
  "senha",
  "contrasen",
  "haslo",
  "losenord",
  "salasana",
  "sifre",
];

/** The words that may make a key secret-named: the rule's triggers, each the start of a candidate. */
const WORDS = [
  "pass",
  "pwd",
  "token",
  "secret",
  "key",
  "auth",
  "cookie",
  "cred",
  "sig",
  "account",
  "identified",
  "sess",
  "pswd",
  "psk",
  ...OTHER_LANGUAGES,
];

/**
 * Where a secret-ish key may be, with the run of key characters (`isKeyChar`) after it: each hit is
 * widened back to its whole key and then judged. The words are all key characters, so the hit ends
 * where the key does, whichever word matched.
 */
const CANDIDATES = new RegExp(`(?:${WORDS.join("|")})[A-Za-z0-9_.-]*`, "gi");

/** A key holding one of these (lower case) names a secret. */
const SECRET_PARTS = [
  "passw",
  "passphrase",
  "passcode",
  "pwd",
  "token",
  "secret",
  "apikey",
  "api_key",
  "api-key",
  "api.key",
  "authorization",
  "cookie",
  "credential",
  "privatekey",
  "private_key",
  "private-key",
  "accesskey",
  "access_key",
  "access-key",
  "signature",
  "_key",
  "-key",
  "account_id",
  "accountid",
  // Env names written without a separator (`AUTHKEY`, `ENCRYPTIONKEY`).
  "authkey",
  "encryptionkey",
  "signingkey",
  "masterkey",
  "secretkey",
  "accountkey",
  "sharedkey",
  // keytool's `-storepass`, `-keypass`, `-srcstorepass`…
  "storepass",
  "keypass",
  // Redis's `requirepass` and `masterauth`.
  "requirepass",
  "masterauth",
  // Web frameworks' session cookies: Django's `sessionid`, `JSESSIONID`, `PHPSESSID`, `ASPSESSIONID…`
  // (a session id is a bearer credential; `session_id` in application logs is a correlation id).
  "sessionid",
  "sessid",
  // Abbreviations: `pswd`, OpenSSL's and OpenSSH's `privkey`, a tracker's `passkey`.
  "pswd",
  "privkey",
  "passkey",
  // Other languages (`Passwort` holds `passw`).
  ...OTHER_LANGUAGES,
  "motdepasse",
  "mot_de_passe",
  "mot-de-passe",
];

/**
 * Whose password a key names when it runs `pass` into the word (`dbpass`, `ROOTPASS`, PHP's
 * `$smtppass`): `bypass`, `compass` and `passenger` are not secrets, these are.
 */
const PASS_OWNERS = [
  ...["db", "pg", "my", "sql", "mysql", "mongo", "redis", "ldap", "bind", "root", "admin", "user"],
  ...["sys", "sa", "app", "web", "api", "smtp", "mail", "imap", "ftp", "sftp", "ssh", "vnc", "rdp"],
  ...["wifi", "wpa", "proxy", "login", "master", "rabbit", "amqp", "mqtt", "es", "auth"],
];

/**
 * Whether `word` ends the key as a component of its own: after `_`, `-`, `.`, a camel-case hump
 * (`dbPass`, `authKey`), or as the whole key when `whole` allows it.
 */
function endsWithPart(key: string, low: string, word: string, whole: boolean): boolean {
  if (!low.endsWith(word)) return false;
  const at = key.length - word.length;
  if (at === 0) return whole;
  const p = key.charCodeAt(at - 1);
  if (p === /* _ */ 95 || p === /* - */ 45 || p === /* . */ 46) return true;
  const c = key.charCodeAt(at);
  return (
    c >= /* A */ 65 &&
    c <= /* Z */ 90 &&
    ((p >= /* a */ 97 && p <= /* z */ 122) || (p >= /* 0 */ 48 && p <= /* 9 */ 57))
  );
}

/** Verdicts by key, remembered: logs (and attackers) repeat the same few keys. */
const VERDICTS = new Map<string, boolean>();

/** Whether a key (as written, without quotes or leading dashes) names a secret. */
function isSecretKey(key: string): boolean {
  let v = VERDICTS.get(key);
  if (v === undefined) {
    v = judgeKey(key.replace(/^-+/, ""));
    if (VERDICTS.size >= 4096) VERDICTS.clear();
    VERDICTS.set(key, v);
  }
  return v;
}

/**
 * Keys judged lately, by a hash of their characters, with their verdicts: a line's keys alternate
 * among a few (`"token3":…,"token0":…`), and one found here is compared in place, without a copy.
 */
const RECENT = 64;
const recentKeys: string[] = Array.from({ length: RECENT }, () => "");
const recentVerdicts = new Uint8Array(RECENT);

/** `isSecretKey` of the key from `ks` to `ke`, without a copy when it was judged lately. */
function isSecretKeyAt(s: string, ks: number, ke: number): boolean {
  let h = ke - ks;
  for (let i = ks; i < ke; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  const slot = (h ^ (h >>> 6)) & (RECENT - 1);
  const known = recentKeys[slot]!;
  if (known.length === ke - ks) {
    let k = 0;
    while (k < known.length && s.charCodeAt(ks + k) === known.charCodeAt(k)) k++;
    if (k === known.length) return recentVerdicts[slot] === 1;
  }
  const key = s.slice(ks, ke);
  const verdict = isSecretKey(key);
  recentKeys[slot] = key;
  recentVerdicts[slot] = verdict ? 1 : 0;
  return verdict;
}

function judgeKey(key: string): boolean {
  // Words of a two-word key join as one (`api key` → `api_key`).
  const low = key.toLowerCase().replaceAll(" ", "_");
  // `--password-stdin`: says where the secret comes from; the word after it is not one.
  if (low.endsWith("stdin")) return false;
  for (const part of SECRET_PARTS) if (low.includes(part)) return true;
  if (low.endsWith("pass") && PASS_OWNERS.some((owner) => endsWithPart(key, low, `${owner}pass`, true)))
    return true;
  return (
    endsWithPart(key, low, "pass", true) ||
    endsWithPart(key, low, "key", false) ||
    endsWithPart(key, low, "auth", true) ||
    // `creds`, `aws_creds`: credentials, shortened as often as not.
    endsWithPart(key, low, "creds", true) ||
    // `sig`: a shared access signature's (Azure's `?sv=…&sig=…` written without its URL).
    endsWithPart(key, low, "sig", true) ||
    // A Wi-Fi network's pre-shared key (`wpa_psk`, hostapd's `wpa_psk=`, NetworkManager's `psk=`).
    endsWithPart(key, low, "psk", true) ||
    endsWithPart(key, low, "account", true)
  );
}

/**
 * Whether the word holding the key at `ks` is the first argument of a command that sets it:
 * `set` (`aws configure set aws_secret_access_key v`, `npm config set //host/:_authToken v`, fish's
 * `set -gx KEY v`), Windows' `setx`, csh's and Apache's `setenv`/`SetEnv`, a Dockerfile's
 * `ENV KEY value` (upper case, as Dockerfiles write it: `env` in prose is a word).
 */
function isSetArgument(s: string, ks: number): boolean {
  let w = ks;
  const stop = Math.max(0, ks - 256);
  while (w > stop && !isSpace(s.charCodeAt(w - 1))) w--;
  if (w < 4 || !isSpace(s.charCodeAt(w - 1))) return false;
  // The word before, from `a` to `b`: a setter ends in `t`, `v` or `x`, fish's flags in `x`, `g` or `u`.
  let b = w - 1;
  const last = s.charCodeAt(b - 1) | 0x20;
  if (
    last !== /* t */ 116 &&
    last !== /* v */ 118 &&
    last !== /* x */ 120 &&
    last !== /* g */ 103 &&
    last !== /* u */ 117
  )
    return false;
  let a = wordStart(s, b, 8);
  if (a < 0) return false;
  if (s.charCodeAt(a) === /* - */ 45) {
    // `set -gx KEY v`: the flags' command before them.
    if (a < 4 || !isSpace(s.charCodeAt(a - 1))) return false;
    b = a - 1;
    a = wordStart(s, b, 3);
    return a >= 0 && b - a === 3 && wordAt(s, a, "set");
  }
  const n = b - a;
  return (
    (n === 3 && (wordAt(s, a, "set") || s.startsWith("ENV", a))) ||
    (n === 4 && wordAt(s, a, "setx")) ||
    (n === 6 && wordAt(s, a, "setenv"))
  );
}

/**
 * Where the command word ending at `b` (before a blank) starts, if it has at most `max` letters or
 * dashes and no key character before it (a blank, a quote, `=`: `{"msg":"SET PASSWORD …`,
 * `cmd=set password …`); else -1.
 */
function wordStart(s: string, b: number, max: number): number {
  let a = b;
  while (a > 0 && a > b - max - 1 && isCommandChar(s.charCodeAt(a - 1))) a--;
  return a > 0 && isKeyChar(s.charCodeAt(a - 1)) ? -1 : a;
}

const isCommandChar = (c: number): boolean => isLetter(c) || c === /* - */ 45;

/** Whether the SQL keyword `word` (lower case) stands at `i`, a blank after it. */
const isSqlWord = (s: string, i: number, word: string): boolean =>
  wordAt(s, i, word) && isSpace(s.charCodeAt(i + word.length));

/** Words that make `<word> key` a secret's key, by length. */
const KEY_KINDS: string[][] = [];
for (const kind of [
  ...["api", "secret", "private", "access", "auth", "encryption", "signing", "master", "account"],
  ...["shared", "client", "app", "license", "ssh", "session", "subscription", "service", "admin"],
  ...["root", "deploy", "storage", "bot", "webhook", "consumer", "ingest", "write"],
])
  KEY_KINDS[kind.length] = [...(KEY_KINDS[kind.length] ?? []), kind];

/** Whether `s` from `a` to `b` is one of the `KEY_KINDS`, any case (compared in place: no copy). */
const isKeyKind = (s: string, a: number, b: number): boolean =>
  KEY_KINDS[b - a]?.some((kind) => wordAt(s, a, kind)) ?? false;

/** Where a candidate matched up to `e` ends as a key: `password->v`'s arrow `-` is not part of it. */
const keyEnd = (s: string, e: number): number =>
  s.charCodeAt(e) === /* > */ 62 && s.charCodeAt(e - 1) === /* - */ 45 ? e - 1 : e;

/** A secret key inside a masked value whose own value may run on past it. */
const INNER = new RegExp(CANDIDATES.source, "gi");
/** How far before a value's end a key it swallowed is looked for. */
const SWALLOWED_LOOKBACK = 256;

/**
 * Where a value from `start` to `end` ends once a key it swallowed is read too: a value read across
 * spaces (past an unbalanced quote: `password=a'b … PASSWORD 'c v'`) may hold a later key of its
 * line whose own value runs on past it. The last secret key in the value's last 256 characters is
 * read, and the value extended to its value's end, until none runs on; each stretch is looked at
 * once, so a line stays linear.
 */
function swallowedValuesEnd(s: string, start: number, end: number): number {
  let from = start;
  for (;;) {
    if (spaceFrom(s, from) >= end) return end;
    let ks = -1;
    let ke = -1;
    INNER.lastIndex = Math.max(from, end - SWALLOWED_LOOKBACK);
    for (let m = INNER.exec(s); m !== null && m.index < end; m = INNER.exec(s)) {
      let a = m.index;
      while (a > from && isKeyChar(s.charCodeAt(a - 1))) a--;
      const b = keyEnd(s, INNER.lastIndex);
      if (isSecretKeyAt(s, a, b)) {
        ks = a;
        ke = b;
      }
    }
    if (ks < 0 || ke > end) return end;
    const inner = valueAfterKey(s, ks, ke, s.charCodeAt(ks) === /* - */ 45, isSecretKeyAt);
    if (inner === null || inner.end <= end) return end;
    from = end;
    // The stretch ends where a word does (a quoted value's close, an element's end tag go with
    // it), so redacting the result again changes nothing.
    end = Math.max(inner.end, wordEnd(s, inner.end));
  }
}

/**
 * The value after `value` and an arrow (`"a" -> "b"`, `a => b`, `(known after apply) -> "b"`): past
 * the old value's close (a quote in any of its forms, a bracket), blanks, `->` or `=>`, blanks.
 * Null when no arrow follows.
 */
function changedValue(s: string, value: ValueSpan): ValueSpan | null {
  let i = value.end;
  if (value.quoted) {
    const c = s.charCodeAt(i);
    if (isQuote(c) || isClosing(c)) i++;
    // An escaped or encoded quote (`\"`, `\u0022`, `%22`, `&quot;`).
    else if (c === /* backslash */ 92 || c === /* % */ 37 || c === /* & */ 38) i = pastQuote(s, i);
  }
  const arrow = skipBlanks(s, i);
  if (arrow === i) return null;
  const c = s.charCodeAt(arrow);
  if ((c !== /* - */ 45 && c !== /* = */ 61) || s.charCodeAt(arrow + 1) !== /* > */ 62) return null;
  const v = skipBlanks(s, arrow + 2);
  return v > arrow + 2 ? valueAt(s, v) : null;
}

/**
 * SQL's value after `IDENTIFIED` ending at `ke`: `IDENTIFIED BY 'v'`, MySQL 8's `IDENTIFIED WITH
 * plugin BY 'v'` (or `AS 'hash'`), and the old `IDENTIFIED BY PASSWORD 'hash'`.
 */
function identifiedValue(s: string, ke: number): ValueSpan | null {
  let by = skipBlanks(s, ke);
  let plugin = false;
  if (by > ke && isSqlWord(s, by, "with")) {
    by = skipBlanks(s, wordEnd(s, skipBlanks(s, by + 4)));
    plugin = true;
  }
  if (by === ke || !(isSqlWord(s, by, "by") || (plugin && isSqlWord(s, by, "as")))) return null;
  let v = skipBlanks(s, by + 2);
  if (isSqlWord(s, v, "password")) v = skipBlanks(s, v + 8);
  return valueAt(s, v);
}

/**
 * The value of a secret-named key from `ks` to `ke` that a command sets, a blank after it: `set KEY
 * VALUE` (`aws configure set`, `npm config set`, Redis's `CONFIG SET`), `ENV KEY VALUE`; MySQL's `SET
 * PASSWORD FOR account = 'v'`. Null when no such command sets it.
 */
function setValue(s: string, ks: number, ke: number): ValueSpan | null {
  if (!isSetArgument(s, ks) || !isSecretKeyAt(s, ks, ke)) return null;
  const v = skipBlanks(s, ke);
  const account = isSqlWord(s, v, "for") ? skipBlanks(s, v + 3) : -1;
  if (account > 0) {
    const eq = skipBlanks(s, wordEnd(s, account));
    return s.charCodeAt(eq) === /* = */ 61 ? valueAt(s, skipBlanks(s, eq + 1)) : null;
  }
  return s.charCodeAt(v) !== /* - */ 45 && !isOperatorAt(s, v) ? valueAt(s, v) : null;
}

/** Whether a key followed by `c` may be in a form `plainValueAfterKey` reads (`:`, `=`, a JSON key's `"`). */
const mayBePlain = (c: number): boolean => c === /* : */ 58 || c === /* = */ 61 || c === /* " */ 34;

function keyValueRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  let floor = 0;
  CANDIDATES.lastIndex = 0;
  for (let m = CANDIDATES.exec(s); m !== null; m = CANDIDATES.exec(s)) {
    // The key around the candidate: looking back further than MAX_KEY only proves it too long.
    let ks = m.index;
    const limit = Math.max(floor, ks - MAX_KEY - 1);
    while (ks > limit && isKeyChar(s.charCodeAt(ks - 1))) ks--;
    const longer = ks === limit && ks > floor && isKeyChar(s.charCodeAt(ks - 1));
    // An escaped quote or `<` before the key (`\u0022--db-pass`, `\u003cpassword`) is not part of
    // it, even where a word ran through it (`\u003cREDIS_PASS`'s `cRED`, a `cred`).
    if (s.charCodeAt(ks - 1) === /* backslash */ 92) {
      const escaped = quoteWordLength(s, ks) || (isEscapedLtAt(s, ks) ? 5 : 0);
      if (escaped > 0 && ks + escaped < CANDIDATES.lastIndex) ks += escaped;
      // Nor the letter of an escaped line break or tab (`\ndbpass:`: a key at its line's start).
      else if (escaped === 0 && isEscapeLetter(s.charCodeAt(ks)) && ks < m.index) ks++;
    } else if (s.charCodeAt(ks - 1) === /* % */ 37) {
      // Nor is a URL-encoded quote's number (`%22creds%22`, `%2522creds%2522`, `%27creds%27`).
      let q = ks;
      while (wordAt(s, q, "25")) q += 2;
      if ((wordAt(s, q, "22") || wordAt(s, q, "27")) && q + 2 <= m.index) ks = q + 2;
    }
    const ke = keyEnd(s, CANDIDATES.lastIndex);
    // A key of two words, `key` after a word that says what kind (`api key`, `"Private Key"`):
    // read as one (`api_key`).
    if (ke - ks === 3 && s.charCodeAt(ks - 1) === /* space */ 32 && wordAt(s, ks, "key")) {
      let word = ks - 1;
      const stop = word - 16;
      while (word > stop && isKeyChar(s.charCodeAt(word - 1))) word--;
      if (word >= stop && !isKeyChar(s.charCodeAt(word - 1)) && isKeyKind(s, word, ks - 1)) ks = word;
    }
    CANDIDATES.lastIndex = ke;
    floor = ke;
    // No program names a key with hundreds of characters: a long run is a token, not a key.
    if (longer || ke - ks > MAX_KEY) continue;
    // The grammar finds where a value starts (most mentions of a key word in prose have none),
    // then the key is judged, then where the value ends is looked for.
    let value = wordAt(s, m.index, "identified")
      ? identifiedValue(s, ke)
      : mayBePlain(s.charCodeAt(ke))
        ? plainValueAfterKey(s, ks, ke, isSecretKeyAt)
        : undefined;
    if (value === undefined) value = valueAfterKey(s, ks, ke, s.charCodeAt(ks) === /* - */ 45, isSecretKeyAt);
    if (value === null && isSpace(s.charCodeAt(ke))) value = setValue(s, ks, ke);
    if (value === null || value.end <= value.start) continue;
    // Only a bare value reads past a quote into the rest of its line; a quoted one (JSON's, a flood
    // of `"key": "` pairs) costs a look back on every key and swallows nothing that runs on.
    if (!value.quoted) value.end = swallowedValuesEnd(s, value.start, value.end);
    // A value already one marker stays as it is; YAML properties before it are masked all the same.
    const { properties } = value;
    const masked = !isOneMark(s, value.start, value.end);
    // A plan's or a diff's new value after the old one is the key's too (`~ password = "a" -> "b"`).
    const next = changedValue(s, value);
    const nextMasked = next !== null && next.end > next.start && !isOneMark(s, next.start, next.end);
    if (!masked && properties === undefined && !nextMasked) continue;
    if (properties !== undefined) {
      spans.push(properties.start, properties.end);
      reps.push(M["key-value"]);
    }
    if (masked) {
      spans.push(value.start, value.end);
      reps.push(M["key-value"]);
    }
    if (nextMasked) {
      spans.push(next.start, next.end);
      reps.push(M["key-value"]);
    }
    CANDIDATES.lastIndex = Math.max(next === null ? value.end : next.end, ke);
    floor = CANDIDATES.lastIndex;
  }
  return splice(s, spans, reps);
}

export const keyValue: Rule = {
  name: "key-value",
  words: WORDS,
  apply: keyValueRule,
};
