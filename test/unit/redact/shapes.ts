/**
 * Generators of secret shapes over the grammars of docs/redaction.md, for the attacker tests: key
 * forms × separators × quotings × escaping depth 0–3 × invisible and compatibility characters, URL
 * authorities, provider tokens, identities. Each shape carries its canaries: random segments of the
 * secret that must not appear in any output byte (a masked prefix with a leaked rest still fails).
 */
import fc from "fast-check";
import { PROVIDERS } from "../../../lib/redact/index.ts";

export interface Shape {
  /** The text (one line, no newline). */
  text: string;
  /** Random pieces of secrets that must not survive. */
  canaries: string[];
  /** What grammar produced it (for failure messages). */
  family: string;
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;

const fromAlphabet = (alphabet: string, min: number, max: number): fc.Arbitrary<string> =>
  fc
    .array(fc.integer({ min: 0, max: alphabet.length - 1 }), { minLength: min, maxLength: max })
    .map((xs) => xs.map((i) => alphabet[i]).join(""));

/**
 * Words a random segment must not spell (any case): followed by `=` or `:`, the segment would be a
 * secret-named key, and a near miss that must stay byte for byte would be masked by chance.
 */
const KEY_WORDS_IN_SEGMENTS =
  /pass|pwd|psk|sig|key|auth|token|secret|cookie|cred|sess|account|senha|haslo|sifre/i;

/** A random segment that cannot occur by chance elsewhere: mixed case and a digit, 7–10 characters. */
export const segment: fc.Arbitrary<string> = fc
  .tuple(
    fromAlphabet(ALNUM, 4, 7),
    fc.constantFrom(...UPPER),
    fc.constantFrom(...LOWER),
    fc.constantFrom(...DIGITS),
  )
  .map(([a, u, l, d]) => `${u}${a}${l}${d}`)
  .filter((s) => !KEY_WORDS_IN_SEGMENTS.test(s));

/** Punctuation that must never end a value. */
const PUNCT = [
  ",",
  ";",
  "&",
  ")",
  "]",
  "}",
  ">",
  "\\",
  "'",
  "|",
  "!",
  "$",
  "%",
  "*",
  "+",
  "=",
  "/",
  ":",
  "#",
  "@",
  "?",
];

/** An unquoted value: segments joined by punctuation (no whitespace). */
const unquotedValue = fc
  .array(fc.tuple(segment, fc.constantFrom(...PUNCT)), { minLength: 1, maxLength: 3 })
  .chain((parts) =>
    segment.map((last) => ({
      text: parts.map(([s, p]) => s + p).join("") + last,
      canaries: [...parts.map(([s]) => s), last],
    })),
  );

/** A quoted value may also hold spaces and the other quote kinds. */
const quotedValue = (quote: string) =>
  fc
    .array(fc.tuple(segment, fc.constantFrom(" ", ", ", "; ", "'", '"', "`", ")", "]", "}", "\\\\")), {
      minLength: 0,
      maxLength: 2,
    })
    .chain((parts) =>
      segment.map((last) => {
        const body = parts.map(([s, p]) => s + (p === quote ? " " : p)).join("");
        return { text: body + last, canaries: [...parts.map(([s]) => s), last] };
      }),
    );

/** One piece of a shell word holding `a` and `b`, in the way `how` picks. */
const SHELL_PIECES: Array<(a: string, b: string) => string> = [
  (a) => a,
  (a, b) => `'${a} ${b}'`,
  (a, b) => `"${a} \\"${b}"`,
  (a, b) => `${a}\\ ${b}`,
  // Command substitutions and parameter expansions, nested and quoted inside.
  (a, b) => `$(printf %s ${a} ${b})`,
  (a, b) => `\${PW:-${a} ${b}}`,
  (a, b) => `$(echo $(echo ${a}) '${b} )')`,
];

/**
 * A shell word of two or three pieces glued together: bare segments, single- and double-quoted
 * runs that may hold spaces (double quotes with escaped quotes inside), backslash-escaped spaces
 * and substitutions (`ab'c d'"e\\"f"`, `ab\\ cd`, `$(printf a b)`, SQL's doubled quote `'it''s'`
 * among them).
 */
const shellWord = fc
  .array(fc.tuple(fc.integer({ min: 0, max: SHELL_PIECES.length - 1 }), segment, segment), {
    minLength: 2,
    maxLength: 3,
  })
  .map((pieces) => ({
    text: pieces.map(([how, a, b]) => SHELL_PIECES[how]!(a, b)).join(""),
    canaries: pieces.flatMap(([how, a, b]) => (how === 0 ? [a] : [a, b])),
  }));

/** Secret-named keys, as programs name them (env, camel, kebab, dotted, flags). */
const KEY_NAMES = [
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "secret",
  "client_secret",
  "token",
  "access_token",
  "auth_token",
  "api_key",
  "apiKey",
  "api-key",
  "apikey",
  "access_key",
  "aws_secret_access_key",
  "private_key",
  "privateKey",
  "credentials",
  "creds",
  "AWS_CREDS",
  "DB_PASS",
  "DB_PASSWORD",
  "PGPASSWORD",
  "MYSQL_PWD",
  "REDIS_PASS",
  "authKey",
  "encryptionKey",
  "signingKey",
  "x-auth-token",
  "app.secret",
  "cookie",
  "signature",
  "sig",
  "sessionid",
  "PHPSESSID",
  "JSESSIONID",
  "dbpass",
  "ROOTPASS",
  "smtppass",
  "pswd",
  "wpa_psk",
  "privkey",
  // Other languages, as ASCII identifiers spell the word.
  "Kennwort",
  "wachtwoord",
  "senha",
  "contrasena",
  "mot_de_passe",
  "haslo",
  "losenord",
  "salasana",
  "sifre",
];

const caseOf = (k: string, mode: number): string =>
  mode === 1 ? k.toUpperCase() : mode === 2 ? k.toLowerCase() : k;

/** A key name with an affix and a case. */
export const keyName: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...KEY_NAMES),
    fc.constantFrom("", "db_", "app.", "my-", "MY_", "gh_"),
    fc.integer({ min: 0, max: 2 }),
  )
  .map(([k, affix, mode]) => caseOf(affix + k, mode));

const SEPARATORS = [
  "=",
  ":",
  ":=",
  "=>",
  "->",
  " = ",
  ": ",
  " => ",
  " := ",
  " -> ",
  // Encoded: URL once and twice, JSON/JS escapes, HTML character references.
  "%3A",
  "%253D",
  "\\u003d",
  "\\u003a",
  "&#61;",
  "&#x3A;",
  "&equals;",
  // Leading zeros, and no `;` where a letter follows (browsers read both).
  "&#0061;",
  "&#x003a;",
  "&#61",
  // Lookalikes NFKC does not fold.
  " → ",
  "⇒",
  "∶",
  "≔ ",
  " ← ",
  "⇐",
  // R's and Go's arrow.
  " <- ",
  "<-",
];
const QUOTES = ['"', "'", "`"];

/** How many forms `keyValueFragment` writes: form numbers run from 0 to this. */
const LAST_FORM = 29;

/** A key-value fragment in one of the grammar's forms (`forms` picks which), with its canaries. */
const keyValueFragment = (
  forms: fc.Arbitrary<number> = fc.integer({ min: 0, max: LAST_FORM }),
): fc.Arbitrary<{ text: string; canaries: string[]; form: string }> =>
  fc
    .tuple(
      keyName,
      fc.constantFrom(...SEPARATORS),
      forms,
      fc.constantFrom(...QUOTES),
      unquotedValue,
      fc.constantFrom(...QUOTES).chain((q) => quotedValue(q).map((v) => ({ q, v }))),
      shellWord,
      fc.tuple(segment, segment),
      fc.integer({ min: 0, max: 15 }),
    )
    .map(([k, sep, form, kq, uv, { q, v }, sw, [f1, f2], pick]) => {
      const qv = `${q}${v.text}${q}`;
      switch (form) {
        case 0:
          return { text: `${k}${sep}${uv.text}`, canaries: uv.canaries, form: "bare" };
        case 1:
          return { text: `${k}${sep}${qv}`, canaries: v.canaries, form: "bare-quoted" };
        case 2:
          return { text: `${kq}${k}${kq}${sep}${qv}`, canaries: v.canaries, form: "quoted" };
        case 3:
          // An array field's key has an index, empty or not, or a name (`password[]=`, `config[password][0]=`).
          return {
            text: `${pick & 4 ? `config[${k}]` : k}${["", "[]", "[0]", "[12]", "[new]"][pick % 5]}${sep}${uv.text}`,
            canaries: uv.canaries,
            form: "bracketed",
          };
        case 4:
          return { text: `params["${k}"]${sep}${qv}`, canaries: v.canaries, form: "bracketed-quoted" };
        case 5:
          return { text: `${k}%3D${uv.text}`, canaries: uv.canaries, form: "url-encoded" };
        case 6: {
          // In a namespace or not (SOAP's `<wsse:Password>`).
          // (Prefixes of letters: a digit written as an escape, `%31`, is read as one only where
          // another escape triggers the decoding.)
          const name = `${["", "wsse:", "soap:", "tns:"][pick % 4]}${k}`;
          return {
            text: `<${name}>${v.text.replace(/[<]/g, "")}</${name}>`,
            canaries: v.canaries,
            form: "xml",
          };
        }
        case 7:
          return {
            text: `<add name="${k}" value="${v.text.replace(/"/g, "'")}"/>`,
            canaries: v.canaries,
            form: "name-value",
          };
        case 8:
          return {
            text: `{"name":"${k}","value":"${v.text.replace(/["\\]/g, "'")}"}`,
            canaries: v.canaries,
            form: "json-name-value",
          };
        case 9:
          // SQL writes a quote inside a string as two.
          return {
            text: `ALTER USER app WITH PASSWORD '${v.text.replace(/'/g, "''")}'`,
            canaries: v.canaries,
            form: "sql",
          };
        case 10: {
          // Oracle's and MySQL's `IDENTIFIED BY`, MySQL 8's with a plugin, the old `BY PASSWORD`.
          const by = ["BY", "WITH mysql_native_password BY", "with caching_sha2_password by", "BY PASSWORD"][
            pick % 4
          ];
          return {
            text: `CREATE USER app IDENTIFIED ${by} '${v.text.replace(/'/g, "''")}'`,
            canaries: v.canaries,
            form: "sql",
          };
        }
        case 11:
          return { text: `--${k.replace(/[._]/g, "-")} ${uv.text}`, canaries: uv.canaries, form: "flag" };
        case 12:
          return { text: `${k}${sep}${sw.text}`, canaries: sw.canaries, form: "shell-word" };
        case 14:
          return {
            text: `<entry key="${k}" type="string">${v.text.replace(/[<]/g, "")}</entry>`,
            canaries: v.canaries,
            form: "xml-attribute-named",
          };
        case 13:
          return {
            text: `--${k.replace(/[._]/g, "-")}=${sw.text}`,
            canaries: sw.canaries,
            form: "flag-shell-word",
          };
        case 15:
          // A connection string's field: its value runs to `;`, spaces included.
          return {
            text: `Server=db.internal;User Id=app;${k}=${f1} ${f2};Encrypt=true`,
            canaries: [f1, f2],
            form: "connection-field",
          };
        case 16:
          // An assignment that opens a quoted string: its value runs to the close, spaces included.
          return {
            text: `docker run -e ${q}${k}=${f1} ${f2}${q} -e ${q}MODE=prod${q} app`,
            canaries: [f1, f2],
            form: "quoted-assignment",
          };
        case 17:
          return {
            text: `[${q}--${k.replace(/[._]/g, "-")}=${f1} ${f2}${q}, ${q}--verbose${q}]`,
            canaries: [f1, f2],
            form: "quoted-flag-assignment",
          };
        case 18:
          // An XML element's text in a CDATA section, which may hold markup.
          return {
            text: `<${k}><![CDATA[${v.text.replaceAll("]]>", "")} <${f1}/>]]></${k}>`,
            canaries: [...v.canaries, f1],
            form: "xml-cdata",
          };
        case 19: {
          // YAML's node properties before the value; what looks like a tag may be the secret itself.
          const tags = [
            "!!str",
            "!!binary",
            `&${f1}`,
            `!${f1}`,
            "!<tag:yaml.org,2002:str>",
            `&${f1}\t!!str`,
            `!!str &${f1}`,
            "!",
          ];
          const value = pick % 2 === 0 ? uv : { text: qv, canaries: v.canaries };
          return {
            text: `${k}: ${tags[pick >> 1]} ${value.text}`,
            canaries: [...value.canaries, ...(tags[pick >> 1]?.includes(f1) ? [f1] : [])],
            form: "yaml-properties",
          };
        }
        case 20: {
          // An element escaped as JSON (Go's encoder writes `<` and `>` so) or HTML writes it.
          const [lt, gt] = pick % 2 === 0 ? ["\\u003c", "\\u003e"] : ["&lt;", "&gt;"];
          const attribute = pick & 2 ? ` type=${q}string${q}` : "";
          const name = `${pick & 4 ? "tns:" : ""}${k}`;
          return {
            text: `${lt}${name}${attribute}${gt}${v.text.replace(/[<>&\\]/g, "")}${lt}/${name}${gt}`,
            canaries: v.canaries,
            form: "xml-escaped",
          };
        }
        case 21: {
          // A call's first argument names the key, its second is the value.
          const call = ["config.set", "System.setProperty", "os.Setenv", "headers.put", "Set"][pick % 5];
          return {
            text: `${call}(${pick & 8 ? " " : ""}${kq}${k}${kq}, ${qv})`,
            canaries: v.canaries,
            form: "call-arguments",
          };
        }
        case 22: {
          // MySQL's `SET PASSWORD FOR account = …`, the value quoted or in `PASSWORD(…)`.
          const account = ["'app'@'%'", "app@localhost", "CURRENT_USER()", "'app'@'10.0.0.%'"][pick % 4];
          const quoted = `'${v.text.replace(/'/g, "''")}'`;
          return {
            text: `SET PASSWORD FOR ${account} = ${pick & 4 ? `PASSWORD(${quoted})` : quoted}`,
            canaries: v.canaries,
            form: "sql-set-password",
          };
        }
        case 23: {
          // A Kubernetes EnvVar as Go (`%v`, `%+v`), YAML's flow style and Java print it.
          const forms = [
            `&EnvVar{Name:${k},Value:${uv.text},ValueFrom:nil,}`,
            `{Name:${k} Value:${uv.text} ValueFrom:nil}`,
            `{name: ${k}, value: ${uv.text}}`,
            `EnvVar(name=${k}, value=${uv.text})`,
          ];
          return { text: forms[pick % forms.length]!, canaries: uv.canaries, form: "unquoted-name-value" };
        }
        case 24: {
          // A plan's or a diff's change: the old value and the new one after an arrow.
          const forms = [
            [`~ ${k} = "${f1}" -> "${f2}"`, [f1, f2]],
            [`${k}: ${f1} -> ${f2}`, [f1, f2]],
            [`~ ${k} = (known after apply) -> "${f2}"`, [f2]],
            [`${k}: "${f1}" => "${f2}"`, [f1, f2]],
          ] as const;
          const [text, canaries] = forms[pick % forms.length]!;
          return { text, canaries: [...canaries], form: "changed-value" };
        }
        case 25: {
          // A type note between key and value: go-spew's, PHP's `var_dump` (with the property's
          // visibility) and `print_r`, a declaration's annotation.
          const n = v.text.length;
          const dq = `"${v.text.replace(/["\\]/g, "'")}"`;
          const forms: Array<[string, string[]]> = [
            [`${k}: (string) (len=${n}) ${dq}`, v.canaries],
            [`${k}: (main.Secret) (len=${n}) ${qv}`, v.canaries],
            [`${k}: (*string)(0xc0000${pick}a250)((len=${n}) ${dq})`, v.canaries],
            [`${k}: ([]string) (len=2 cap=2) {${qv}, ${q}${f1}${q}}`, [...v.canaries, f1]],
            [`["${k}"]=>${pick & 16 ? "  " : " "}string(${n}) ${dq}`, v.canaries],
            [`["${k}":protected]=> string(${n}) ${dq}`, v.canaries],
            [`["${k}":"App\\Models\\User":private]=> string(${n}) ${dq}`, v.canaries],
            [`[${k}:protected] => ${uv.text}`, uv.canaries],
            [`[${k}:App\\Models\\User:private] => ${uv.text}`, uv.canaries],
            [`${k}: str = ${qv}`, v.canaries],
            [`val ${k}: String = ${qv}`, v.canaries],
            [`let ${k}: &str = ${qv};`, v.canaries],
            [`private ${k}: string = ${qv};`, v.canaries],
            [`${k}: Optional[str] = ${uv.text}`, uv.canaries],
          ];
          const [text, canaries] = forms[pick % forms.length]!;
          return { text, canaries, form: "type-note" };
        }
        case 26: {
          // ODBC's braces quote a field's value: `;` and `=` inside, `}}` for a `}`.
          const inner = [`${f1};${f2}`, `${f1}}}${f2}`, `${f1} = ${f2}}};`, `${f1};${f2}}}`, `{${f1};${f2}`][
            pick % 5
          ]!;
          const text =
            pick & 8
              ? `Driver={ODBC Driver 18 for SQL Server};Server=tcp:db,1433;Uid=app;${k}={${inner}};Encrypt=yes`
              : `${k}={${inner}};Server=db;Uid=app`;
          return { text, canaries: [f1, f2], form: "odbc-braces" };
        }
        case 27: {
          // PostgreSQL's string constants besides '…': dollar-quoted, with escapes, with Unicode escapes.
          const body = v.text.replaceAll("$", "").replaceAll("'", "''");
          const value = [
            `$$${body}$$`,
            `$pw$${body}$pw$`,
            `$_xy$${body}$_xy$`,
            `E'${v.text.replace(/\\/g, "").replace(/'/g, "\\'")}'`,
            `U&'${body}'`,
            `e'${body}'`,
          ][pick % 6]!;
          return {
            text: `ALTER ROLE app WITH LOGIN PASSWORD ${value}${pick & 8 ? " VALID UNTIL 'infinity'" : ";"}`,
            canaries: v.canaries,
            form: "sql-string-constant",
          };
        }
        case 28: {
          // A call of a secret-named function (a setter, a builder), and a pair whose first item is the key.
          // Camel case, each part's first letter raised (`db_pass` → `DbPass`), as a setter's name is.
          const camel = k
            .split(/[._-]/)
            .map((part) => (part === "" ? "" : part[0]!.toUpperCase() + part.slice(1).toLowerCase()))
            .join("");
          const forms = [
            `ds.set${camel}(${qv});`,
            `Builder().${camel[0]!.toLowerCase()}${camel.slice(1)}(${pick & 4 ? " " : ""}${qv}).build()`,
            `{${kq}${k}${kq}, ${qv}}`,
            // An Erlang atom: lower case, `_` between words.
            `[{${k.toLowerCase().replace(/[.-]/g, "_")}, ${qv}}]`,
          ];
          return { text: forms[pick % forms.length]!, canaries: v.canaries, form: "call-or-pair" };
        }
        default:
          // A command line logged as a list: the flag's value is the next item.
          return {
            text: `[${q}mysqld${q}, ${q}--${k.replace(/[._]/g, "-")}${q},${sep.startsWith(" ") ? " " : ""}${qv}]`,
            canaries: v.canaries,
            form: "flag-list",
          };
      }
    });

/** Keys of two words, `<kind> key` (`api key`, `"Private Key"`), bare or quoted, in any case. */
export const twoWordKeyShape: fc.Arbitrary<Shape> = fc
  .tuple(
    fc.constantFrom("api", "secret", "private", "access", "encryption", "signing", "client", "ssh"),
    fc.integer({ min: 0, max: 2 }),
    fc.constantFrom(...SEPARATORS),
    unquotedValue,
    quotedValue('"'),
    fc.integer({ min: 0, max: 2 }),
  )
  .map(([kind, mode, sep, uv, qv, form]) => {
    const key = caseOf(`${kind} key`, mode);
    const title = key.replace(/\b[a-z]/g, (c) => c.toUpperCase());
    const [text, canaries] =
      form === 0
        ? [`${key}${sep}${uv.text}`, uv.canaries]
        : form === 1
          ? [`"${title}"${sep}"${qv.text}"`, qv.canaries]
          : [`{"${key}": "${qv.text.replace(/["\\]/g, "'")}"}`, qv.canaries];
    return { text: `config ${text}`, canaries, family: `two-word-key/${form}` };
  });

/** JSON-escape `s` `depth` times (as a string nested in JSON nested in JSON …), optionally as `\u0022`. */
export function escapeDepth(s: string, depth: number, unicode: boolean): string {
  let out = s;
  for (let d = 0; d < depth; d++) out = JSON.stringify(out).slice(1, -1);
  return unicode && depth > 0 ? out.replaceAll('\\"', "\\u0022") : out;
}

/** Invisible characters an attacker can slip in, and the compatibility forms the shadow folds. */
export const INVISIBLES = [
  "\u200b",
  "\u200c",
  "\u200d",
  "\u00ad",
  "\u2060",
  "\ufeff",
  "\u202e",
  "\u2066",
  "\u180e",
  "\ufe0f",
];

/** The fullwidth compatibility form of each printable ASCII character (NFKC folds it back). */
export const fullwidth = (s: string): string =>
  [...s].map((c) => (c >= "!" && c <= "~" ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join("");

/**
 * One letter, digit, `_`, `-` or `.` written as an escape another layer would decode: JSON/JS
 * `\u0061`, percent-encoded once or twice, an HTML character reference (decimal or hex, with
 * or without leading zeros).
 */
export const escapeKeyChar = (c: string, how: number): string => {
  const code = c.charCodeAt(0);
  const hex = code.toString(16).padStart(2, "0");
  switch (how % 7) {
    case 0:
      return `\\u00${hex}`;
    case 1:
      return `%${hex.toUpperCase()}`;
    case 2:
      return `%25${hex}`;
    case 3:
      return `&#${code};`;
    case 4:
      return `&#x${hex};`;
    case 5:
      return `&#00${code};`;
    default:
      return `&#X00${hex.toUpperCase()};`;
  }
};

/**
 * Disguise the key part (before the value starts) at random positions: invisible characters (modes
 * 1, 2; 2 also turns spaces into no-break spaces), fullwidth forms (3), or key characters written
 * as escapes (4).
 */
const disguise = (text: string, valueAt: number, picks: number[], mode: number): string => {
  if (mode === 0) return text;
  let head = text.slice(0, valueAt);
  const tail = text.slice(valueAt);
  if (mode === 3) return fullwidth(head) + tail;
  if (mode === 4) {
    // Characters of an escape already there (an encoded separator or quote) stay as they are.
    const inEscape = new Set<number>();
    for (const m of text.matchAll(/\\+u[0-9a-fA-F]{4}|%(?:25)?[0-9A-Fa-f]{2}|&#?[0-9a-zA-Z]+;/g))
      for (let i = m.index; i < m.index + m[0].length; i++) inEscape.add(i);
    const keyChars = [...head.matchAll(/[A-Za-z0-9_.-]/g)]
      .map((m) => m.index)
      .filter((i) => !inEscape.has(i));
    if (keyChars.length === 0) return text;
    for (const p of [...new Set(picks.map((p) => keyChars[p % keyChars.length]!))].sort((a, b) => b - a))
      head = head.slice(0, p) + escapeKeyChar(head[p]!, picks[0]! + p) + head.slice(p + 1);
    return head + tail;
  }
  for (const p of picks) {
    const at = p % (head.length + 1);
    head = head.slice(0, at) + INVISIBLES[p % INVISIBLES.length] + head.slice(at);
  }
  if (mode === 2) head = head.replaceAll(" ", "\u00a0");
  return head + tail;
};

const CONTEXT_BEFORE = [
  "",
  "ERROR ",
  "WARN retry ",
  "INFO config loaded: ",
  'DEBUG {"msg":"',
  'level=error msg="',
  "[gateway] ",
];
const CONTEXT_AFTER = ["", " done", '" }', ", retrying", " (from env)"];

/**
 * Key-value shapes: every form (or those `forms` picks: the numbers of `keyValueFragment`'s cases),
 * separator, quoting, escaping depth and disguise.
 */
export const keyValueShapeOf = (forms?: readonly number[]): fc.Arbitrary<Shape> =>
  fc
    .tuple(
      keyValueFragment(forms === undefined ? undefined : fc.constantFrom(...forms)),
      fc.integer({ min: 0, max: 3 }),
      fc.boolean(),
      fc.integer({ min: 0, max: 4 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...CONTEXT_BEFORE),
      fc.constantFrom(...CONTEXT_AFTER),
    )
    .map(([frag, depth, unicode, mode, picks, before, after]) => {
      const firstCanary = frag.text.indexOf(frag.canaries[0]!);
      const disguised = disguise(frag.text, Math.max(0, firstCanary - 1), picks, mode);
      return {
        text: before + escapeDepth(disguised, depth, unicode) + after,
        canaries: frag.canaries,
        family: `key-value/${frag.form}/depth${depth}${unicode ? "/u0022" : ""}/disguise${mode}`,
      };
    });

export const keyValueShape: fc.Arbitrary<Shape> = keyValueShapeOf();

/**
 * `c` percent-encoded `depth` times (0: as written; 2: `%25XX`), its hex digits in upper or lower
 * case: how a URL travels as a parameter's value (`next=https%3A%2F%2F…`).
 */
export function percentEncoded(c: string, depth: number, upper: boolean): string {
  if (depth === 0) return c;
  const hex = c.charCodeAt(0).toString(16).padStart(2, "0");
  return `${depth === 2 ? "%25" : "%"}${upper ? hex.toUpperCase() : hex}`;
}

/**
 * Per character a URL may encode: how deep (0–2, no deeper than the URL's `maxDepth`) and in which
 * hex case, drawn from `picks` in turn.
 */
export const encodingPicks = fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 1, maxLength: 24 });

/**
 * A URL's pieces `[text, encodable]` as written: each encodable character (`: / ? # @` of the
 * structure, the password's reserved characters) percent-encoded as `picks` say, to at most
 * `maxDepth` (0: all as written). A URL whose `://` (pieces `schemeEnd`) holds an encoding is a
 * parameter's value: its `&` is encoded too (a bare `&` ends it).
 */
export function encodeUrl(
  pieces: ReadonlyArray<readonly [string, boolean]>,
  schemeEnd: readonly [number, number],
  maxDepth: number,
  picks: ReadonlyArray<readonly [number, boolean]>,
): string[] {
  const depths = pieces.map(([, encodable], k) =>
    encodable ? picks[k % picks.length]![0] % (maxDepth + 1) : 0,
  );
  const encoded = depths.slice(schemeEnd[0], schemeEnd[1]).some((d) => d > 0);
  return pieces.map(([c, encodable], k) => {
    const d = encoded && c === "&" ? Math.max(1, depths[k]!) : depths[k]!;
    return encodable ? percentEncoded(c, d, picks[k % picks.length]![1]) : c;
  });
}

/** A URL's pieces: its scheme, `://`, the userinfo, `@` and the host, whose characters in `structure` an encoder may encode. */
export const urlPieces = (
  scheme: string,
  userinfo: Array<[string, boolean]>,
  host: string,
  structure: string,
): Array<[string, boolean]> => [
  [scheme, false],
  [":", true],
  ["/", true],
  ["/", true],
  ...userinfo,
  ["@", true],
  ...[...host].map((c): [string, boolean] => [c, structure.includes(c)]),
];

/**
 * A userinfo's pieces, each with whether it is structure an encoder may encode (`:`) or text, in
 * the form `form` picks: an empty user (0), a bare user (1), user and password (2), user and `:` (3).
 */
export const userinfoPieces = (
  form: number,
  user: string,
  password: Array<[string, boolean]>,
): Array<[string, boolean]> =>
  form === 0
    ? [[":", true], ...password]
    : form === 1
      ? [[user, false]]
      : form === 2
        ? [[user, false], [":", true], ...password]
        : [
            [user, false],
            [":", true],
          ];

/**
 * URL authorities: empty user, bare token as user, `@ / ? : #` inside the password; written plain,
 * with JSON-escaped slashes, or percent-encoded in part or whole, once or twice, in either hex case.
 */
export const urlShape: fc.Arbitrary<Shape> = fc
  .tuple(
    fc.constantFrom(
      "https",
      "http",
      "postgres",
      "postgresql",
      "redis",
      "mongodb+srv",
      "amqp",
      "mysql",
      "ftp",
      "git+ssh",
    ),
    fc.integer({ min: 0, max: 3 }),
    segment,
    segment,
    fc.array(
      fc.tuple(
        fc.constantFrom("@", "/", "?", ":", "#", "!", "$", "&", "'", "(", "*", "+", ",", ";", "=", "%40"),
        segment,
      ),
      {
        maxLength: 2,
      },
    ),
    fc.constantFrom(
      "db.internal:5432/app",
      "github.com/org/repo.git",
      "cache:6379/0",
      "h/x?y=1",
      "example.com",
    ),
    fc.constantFrom("", '"', "'", "(", "url=", "next=", "redirect_uri="),
    // Slashes as written, or escaped as JSON encoders that escape `/` (PHP's) write them, once or twice.
    fc.constantFrom("/", "\\/", "\\\\\\/"),
    fc.integer({ min: 0, max: 2 }),
    encodingPicks,
  )
  .map(([scheme, form, user, pw, extra, host, quote, slash, maxDepth, picks]) => {
    const reserved = (c: string): [string, boolean] => [c, c.length === 1];
    const password: Array<[string, boolean]> = [
      [pw, false],
      ...extra.flatMap(([p, s]): Array<[string, boolean]> => [reserved(p), [s, false]]),
    ];
    const userinfo = userinfoPieces(form, user, password);
    const pieces = urlPieces(scheme, userinfo, host, ":/?");
    const url = encodeUrl(pieces, [1, 4], maxDepth, picks).join("").replaceAll("/", slash);
    const close = quote === "(" ? ")" : quote.endsWith("=") ? "" : quote;
    const canaries =
      form === 1
        ? [user]
        : form === 3
          ? [user]
          : form === 0
            ? [pw, ...extra.map(([, s]) => s)]
            : [user, pw, ...extra.map(([, s]) => s)];
    return {
      text: `connecting to ${quote}${url}${close} now`,
      canaries,
      family: `url/${["empty-user", "bare-token", "user-password", "user-only"][form]}/encoded${maxDepth}`,
    };
  });

const BODY: Record<number, string> = {
  1: `${ALNUM}_-`,
  2: `${ALNUM}_-`,
  3: `${ALNUM}+/`,
  4: "0123456789abcdef",
  5: UPPER + DIGITS,
  6: `${ALNUM}_-`,
  7: `${ALNUM}`,
};

/** What a token's lead is made of, by body kind: digits (a Telegram bot id), or `[A-Za-z0-9_.~]`. */
const LEADS: Record<number, string> = { 8: "8302917465831029", 9: "x.Y" };

/**
 * Every provider of the catalog: its lead if it has one, its prefix and a random body of at least
 * its minimum length.
 */
export const providerShape: fc.Arbitrary<Shape> = fc
  .tuple(
    fc.integer({ min: 0, max: PROVIDERS.length - 1 }),
    fc.integer({ min: 0, max: 24 }),
    fc.nat(),
    // Escape sequences too: a token on the next line of a JSON string's message (`\n`), after an
    // encoded `=` (`%3D`).
    fc.constantFrom(" ", "=", ": ", '="', " '", "(", "_", "1", "\\n", "\\t", "\\u000a", "%0A", "%3D"),
  )
  .chain(([i, extra, seed, anyLead]) => {
    const p = PROVIDERS[i]!;
    // Prefixes that occur inside words count only at a word boundary (as the catalogs match them),
    // and a token's own lead (Telegram's bot id) is a whole run of its characters.
    const glued = p.strict === true || p.lead !== undefined;
    const lead = glued && (anyLead === "_" || anyLead === "1") ? " " : anyLead;
    const own =
      p.lead === undefined
        ? ""
        : LEADS[p.lead.body]!.slice(0, p.lead.min + (seed % (p.lead.max - p.lead.min + 1)));
    const alphabet = BODY[p.body] ?? ALNUM;
    return fromAlphabet(alphabet, p.min + extra, p.min + extra).map((raw) => {
      // A body with the character kinds real tokens have, so every canary is unmistakable.
      let body = raw;
      if (p.body === 4) body = `${raw.slice(0, -2)}${"9a"}`;
      else if (p.body === 5) body = `${raw.slice(0, -2)}Z7`;
      else body = `${raw.slice(0, -3)}Q${"x"}${seed % 10}`;
      const token = p.body === 7 ? `sr=${body}&sig=${body.slice(0, 12)}%2F&se=1700000000` : body;
      const text = `${lead === "_" || lead === "1" ? "id" : "using"}${lead}${own}${p.prefix}${token} ok`;
      return {
        text,
        canaries: [body.slice(0, 8), body.slice(-8), token, ...(own.length >= 4 ? [own] : [])],
        family: `provider/${p.prefix}`,
      };
    });
  });

/** Identities in every quoting, escaped or not. */
export const identityShape: fc.Arbitrary<Shape> = fc
  .tuple(
    fc.constantFrom("sender_id", "session_key", "sender-id", "SESSION-KEY", "SENDER_ID", "senderId"),
    fc.integer({ min: 0, max: 12 }),
    segment,
    segment,
    fc.integer({ min: 0, max: 2 }),
    fc.constantFrom("gateway restart-dispatch source=cli ", "INFO ", "", "DEBUG payload {"),
    fc.nat(),
  )
  .map(([key, form, a, b, depth, before, pick]) => {
    const v = `${a}:dm:${b}`;
    const at = pick % key.length;
    const frag = [
      `--${key} ${v}`,
      `GET /hook?${key}=${v}&next=1`,
      `<${key}>${v}</${key}>`,
      `${key.slice(0, at)}${escapeKeyChar(key[at]!, pick)}${key.slice(at + 1)} => ${v}`,
      `${key}=${v}`,
      `${key}="${v}"`,
      `${key}='${v}'`,
      `${key}: ${v}`,
      `"${key}":"${v}"`,
      `"${key}": "${v}"`,
      `${key.replace("_id", "Id").replace("_key", "Key")}=${v}`,
      `\\u003c${key}\\u003e${v}\\u003c/${key}\\u003e`,
      `&lt;${key}&gt;${v}&lt;/${key}&gt;`,
    ][form]!;
    return {
      text: `${before + escapeDepth(frag, depth, false)} action=restart`,
      canaries: [a, b],
      family: `identity/${form}/depth${depth}`,
    };
  });

const MARKERS = ["[redacted:pem]", "[redacted:key-value]", `hmac-sha256:v1:k1:${"ab".repeat(32)}`];

/**
 * Markers and pseudonyms shield nothing: a secret glued to one is still masked, and a random token
 * cut in two by one, or by what a rule masks (each half shorter than a long token), is still one.
 */
export const markerShape: fc.Arbitrary<Shape> = fc.oneof(
  fc.tuple(keyName, fc.constantFrom(...MARKERS), segment, fc.boolean()).map(([k, marker, s, after]) => ({
    text: after ? `${k}=${marker}${s}` : `${k}=${s}${marker}`,
    canaries: [s],
    family: "marker-shield",
  })),
  fc
    .tuple(
      // A marker in the input, or one an earlier rule puts there (a PEM block).
      fc.constantFrom(...MARKERS.slice(0, 2), "-----BEGIN PRIVATE KEY-----MIIBVQ-----END PRIVATE KEY-----"),
      fc.array(segment, { minLength: 3, maxLength: 4 }),
      fc.integer({ min: 1, max: 2 }),
    )
    // With the marker for one character, a run of at least 40: a long token.
    .filter(([, parts]) => parts.join("").length >= 39)
    .map(([marker, parts, cut]) => ({
      text: `id ${parts.slice(0, cut + 1).join("")}${marker}${parts.slice(cut + 1).join("")} ok`,
      canaries: parts,
      family: "marker-split-token",
    })),
);

/**
 * Secrets on command lines and in connect strings, in the tools' own forms: shell-quoted with a
 * space or plain, Oracle passwords double-quoted or plain.
 */
export const commandShape: fc.Arbitrary<Shape> = fc
  .tuple(
    fc.nat(),
    segment,
    segment,
    segment,
    fc.boolean(),
    fc.constantFrom("", "; ", " && ", " || "),
    fc.array(fc.boolean(), { minLength: 32, maxLength: 32 }),
  )
  .map(([pick, u, p1, p2, quoted, chain, upper]) => {
    const user = u.toLowerCase();
    // PowerShell reads its cmdlets and parameters in any case.
    const ps = (name: string): string =>
      [...name].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c.toLowerCase())).join("");
    const shell = quoted ? `'${p1} ${p2}'` : p1;
    const oracle = quoted ? `"${p1} ${p2}"` : p1;
    const forms = [
      `curl -u ${user}:${shell} https://api.example.com`,
      `curl --user=${user}:${shell} https://api.example.com`,
      `curl --proxy-user ${user}:${shell} -x proxy:3128 https://api.example.com`,
      `curl -U ${user}:${shell} https://api.example.com`,
      `mysql -u root -p${shell} app`,
      `mysqldump --password=${shell} app`,
      `redis-cli -h cache -a ${shell} PING`,
      `sshpass -p ${shell} ssh deploy@host`,
      `docker login -u ci -p ${shell} registry.example`,
      `docker login -u ci -p=${shell} registry.example`,
      `podman login -u ci -p${p1} registry.example`,
      `openssl enc -aes256 -k ${shell} -in x`,
      `openssl pkcs12 -passin pass:${shell} -in x.p12`,
      `keytool -list -storepass ${shell}`,
      `vault login ${shell}`,
      `sqlplus ${user}/${oracle}@//db.internal:1521/svc`,
      `sqlplus -s ${user}/${oracle}@orcl as sysdba`,
      `expdp ${user}/${oracle}@orcl directory=dp dumpfile=x.dmp`,
      `rman target ${user}/${oracle}@orcl`,
      `sqlldr userid=${user}/${oracle}@orcl control=load.ctl`,
      `SQL> connect ${user}/${oracle}@orcl`,
      `url=jdbc:oracle:thin:${user}/${oracle}@//db:1521/svc`,
      // In JSON whose encoder escapes `/` (PHP's), once or twice.
      `{"url":"jdbc:oracle:thin:${user}\\/${p1}@\\/\\/db:1521\\/svc"}`,
      `{"cmd":"sqlplus -s ${user}\\\\\\/${p1}@orcl"}`,
      `HTTPS_PROXY=${user}:${shell}@proxy.internal:3128`,
      `aws configure set aws_secret_access_key ${shell}`,
      `npm config set //registry.npmjs.org/:_authToken ${shell}`,
      `Step 4/9 : ENV DB_PASSWORD ${shell}`,
      `setenv DB_PASSWORD ${shell}`,
      `SetEnv APP_SECRET ${shell}`,
      `redis-cli CONFIG SET requirepass ${shell}`,
      `redis-cli -h cache AUTH default ${shell}`,
      `1700000000.107412 [0 10.0.0.7:60866] "AUTH" "${p1}"`,
      // Clients send `auth` in lower case, with a user, also inside `HELLO` (go-redis v9).
      `1700000000.107412 [0 10.0.0.7:60866] "auth" "default" "${p1}"`,
      `1700000000.107412 [0 10.0.0.7:60866] "hello" "3" "auth" "${user}" "${p1}" "setname" "app"`,
      `127.0.0.1:6379> AUTH default ${shell}`,
      `cache:6379[2]> auth ${shell}`,
      `valkey-cli -h cache -a ${shell} PING`,
      `keydb-cli -h cache AUTH default ${shell}`,
      `mongo --host db -u admin -p ${shell} --authenticationDatabase admin`,
      `sqlcmd -S db -U sa -P ${shell} -Q "select 1"`,
      `rabbitmqctl add_user admin ${shell}`,
      `echo ${shell} | docker login -u ci --password-stdin registry.example`,
      `curl --proxy ${user}:${p1}@proxy:8080 https://api.example.com`,
      `htpasswd -b /etc/nginx/.htpasswd ${user} ${shell}`,
      `htpasswd -nbB -C 12 ${user} ${shell} > out`,
      `ldapsearch -x -D cn=admin,dc=example -w ${shell} -b dc=example`,
      `ldapwhoami -D cn=admin -w${p1}`,
      `zip -P ${shell} backup.zip data`,
      `7z a -p${shell} backup.7z data`,
      `mosquitto_pub -h mq -u ${user} -P ${shell} -t t -m x`,
      `useradd -m -p ${shell} ${user}`,
      `smbclient //files/share -U ${user}%${shell}`,
      `sshpass -p${p1} ssh deploy@host`,
      `echo '${user}:${p1}' | chpasswd`,
      `echo ${shell} | passwd --stdin ${user}`,
      `["mysqld", "--password=${p1} ${p2}", "--verbose"]`,
      // Secret stores, given the value by a flag or through a pipe; PowerShell's secure strings.
      `gh secret set API_TOKEN --body ${shell}`,
      `gh secret set API_TOKEN -b ${shell} --repo org/app`,
      `az keyvault secret set --vault-name kv --name db --value ${shell}`,
      `aws ssm put-parameter --name /app/db --value=${shell} --type SecureString`,
      `echo ${shell} | gh secret set API_TOKEN`,
      `printf %s ${shell} | docker secret create db_pass -`,
      `echo -n ${shell} | gcloud secrets versions add db-pass --data-file=-`,
      `echo ${shell} | npx wrangler secret put API_TOKEN`,
      `echo ${shell} | vercel env add API_TOKEN production`,
      `$cred = New-Object PSCredential('${user}', (${ps("ConvertTo-SecureString")} ${shell} -AsPlainText -Force))`,
      `$s = ${ps("ConvertTo-SecureString")} ${ps("-String")} ${shell} -AsPlainText -Force`,
      `$s = ConvertTo-SecureString ${shell} -AsPlainText -Force`,
      `setx API_TOKEN ${shell}`,
      `set -gx API_TOKEN ${shell}`,
    ];
    const form = pick % forms.length;
    // The same command again after the first ends (`docker login … && docker login …`), or once.
    const text = `INFO exec: ${forms[form]!}${chain === "" ? "" : `${chain}${forms[form]!}`}`;
    // The pieces of the secret this form wrote (some take the plain secret only).
    return { text, canaries: [p1, p2].filter((c) => text.includes(c)), family: `command/${form}` };
  });

/** A piece of a structure: its text and the secret segments it holds. */
interface Piece {
  text: string;
  canaries: string[];
}

/** Keys inside a secret's structure: secret-named or not, its values are masked all the same. */
const INNER_KEYS = ["name", "id", "type", "password", "token", "user", "value", "api_key"];

/**
 * A list, an object or a tuple of any nesting as the value of a secret-named key: items bare or
 * quoted (brackets and the other quotes inside a quoted item count for nothing), objects of
 * `"key": item` pairs, lists inside objects and back. Every segment in it is a secret.
 */
const structure: fc.Arbitrary<Piece> = fc.letrec<{ item: Piece; node: Piece }>((tie) => ({
  item: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    segment.map((a) => ({ text: a, canaries: [a] })),
    fc
      .tuple(
        segment,
        fc.constantFrom('"', "'"),
        fc.constantFrom("", "]", "}", ")", "[", "{", "(", ", ", '"', "'"),
        segment,
      )
      .map(([a, q, inside, b]) => {
        // The other quote inside stays literal; the same quote inside is escaped.
        const body = `${a}${inside === q ? `\${q}` : inside}${b}`;
        return { text: `${q}${body}${q}`, canaries: [a, b] };
      }),
    // A bracket escaped with a backslash inside a bare item.
    fc
      .tuple(segment, fc.constantFrom("\\]", "\\}", "\\)", "\\["), segment)
      .map(([a, bracket, b]) => ({ text: `${a}${bracket}${b}`, canaries: [a, b] })),
    tie("node"),
  ),
  node: fc
    .tuple(
      fc.constantFrom("{}", "[]", "()"),
      fc.array(fc.tuple(fc.constantFrom(...INNER_KEYS), tie("item")), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(", ", ",", " "),
    )
    .map(([brackets, items, comma]) => {
      const object = brackets === "{}";
      const parts = items.map(([k, v]) => (object ? `"${k}": ${v.text}` : v.text));
      return {
        text: `${brackets[0]}${parts.join(comma)}${brackets[1]}`,
        canaries: items.flatMap(([, v]) => v.canaries),
      };
    }),
})).node;

/** Structured values of secret-named keys (`"credentials": {"password": "v"}`, `tokens: [a, b]`), escaped to depth 0–2. */
export const structureShape: fc.Arbitrary<Shape> = fc
  .tuple(
    keyName,
    fc.constantFrom('"K": ', '"K":', "K=", "K: ", "K => "),
    structure,
    fc.integer({ min: 0, max: 2 }),
    fc.integer({ min: 0, max: 3 }),
    fc.constantFrom(...CONTEXT_BEFORE),
    fc.constantFrom("", " done", ", retrying", ' "next": 1'),
  )
  .map(([key, form, value, depth, quoting, before, after]) => {
    // Quotes as JSON escapes them again (`\u0022`) or as HTML or a URL (once or twice) encodes them.
    const plain = `${form.replace("K", key)}${value.text}`;
    const text =
      quoting === 0
        ? escapeDepth(plain, depth, depth > 0)
        : escapeDepth(plain.replaceAll('"', ["", "&quot;", "%22", "%2522"][quoting]!), depth, false);
    return {
      text: before + text + after,
      canaries: value.canaries,
      family: `structure/${form}/depth${depth}/quoting${quoting}`,
    };
  });

/**
 * Positional credentials of well-known APIs, as their documentation writes the call (the password's
 * place is the API's fact): any quote, context and escaping depth, the arguments before the
 * password holding commas in strings and brackets.
 */
const POSITIONAL_CALLS: Array<(user: string, password: string, other: string) => string> = [
  (u, p) => `db.auth(${u}, ${p})`,
  (u, p) => `db.getSiblingDB("admin").changeUserPassword(${u}, ${p})`,
  (u, p) => `requests.get(url, auth=HTTPBasicAuth(${u}, ${p}))`,
  (u, p) => `httpx.DigestAuth(${u}, ${p})`,
  (u, p) => `aiohttp.BasicAuth(${u}, ${p})`,
  (u, p) => `server.login(${u}, ${p})`,
  (u, p) => `pika.PlainCredentials(${u}, ${p})`,
  (u, p) => `conn.simple_bind_s(${u}, ${p})`,
  (u, p) => `u := url.UserPassword(${u}, ${p})`,
  (u, p) => `req.SetBasicAuth(${u}, ${p})`,
  (u, p, x) => `smtp.PlainAuth("", ${u}, ${p}, ${x})`,
  (u, p, x) => `DriverManager.getConnection(${x}, ${u}, ${p})`,
  (u, p) => `new PasswordAuthentication(${u}, ${p}.toCharArray())`,
  (u, p) => `new UsernamePasswordAuthenticationToken(${u}, ${p})`,
  (u, p) => `Credentials.basic(${u}, ${p})`,
  (u, p, x) => `$db = new PDO(${x}, ${u}, ${p});`,
  (u, p, x) => `mysqli_connect(${x}, ${u}, ${p}, 'app')`,
  (u, p, x) => `$m->real_connect(${x}, ${u}, ${p})`,
  (u, p) => `ldap_bind($conn, ${u}, ${p})`,
  (u, p) => `Http::withBasicAuth(${u}, ${p})->get($url)`,
  (u, p) => `new NetworkCredential(${u}, ${p})`,
];

/** Other arguments before the password: strings and calls holding commas, semicolons and brackets. */
const OTHER_ARGUMENTS = [
  '"jdbc:mysql://db:3306/app?a=1,b=2"',
  "'mysql:host=db;dbname=app'",
  'f("a,b", [1, 2])',
  "host",
];

export const positionalCallShape: fc.Arbitrary<Shape> = fc
  .tuple(
    fc.integer({ min: 0, max: POSITIONAL_CALLS.length - 1 }),
    fc.constantFrom('"', "'"),
    quotedValue('"'),
    // A user name (shown: only the password is the secret).
    fc.constantFrom("admin", "app", "svc-reporting", "u1@example.com"),
    fc.constantFrom(...OTHER_ARGUMENTS),
    fc.integer({ min: 0, max: 2 }),
    fc.constantFrom(...CONTEXT_BEFORE),
  )
  .map(([k, q, v, user, other, depth, before]) => {
    // The password as a string literal of that quote (no quote of its kind, no backslash inside).
    const body = v.text.replaceAll(q, " ").replaceAll("\\", " ");
    const call = POSITIONAL_CALLS[k]!(`${q}${user}${q}`, `${q}${body}${q}`, other);
    return {
      text: before + escapeDepth(call, depth, depth > 0),
      canaries: v.canaries,
      family: `positional-call/${k}/depth${depth}`,
    };
  });

/** What may stand between a key's `:` and its line's break (YAML's block scalar headers, a comment, a tag or an anchor). */
const LINE_HEADS = [
  "",
  " ",
  "|",
  ">",
  "|-",
  ">+",
  "|2",
  ">-",
  "|+1",
  "# rotated",
  " | # note",
  "# ",
  "!!str",
  "&db",
  "!",
];

/**
 * A YAML value on the lines after its key (`password:\n  v`, `password: |\n  v`, a compact list),
 * as text of several lines: the key's line indented `indent` (under a parent key, inside a list
 * entry, or after prose), value lines deeper (blank lines between), then a sibling key at the key's
 * indentation or less, whose value (`keep`) must stay. `lineBreak` joins the lines.
 */
export const nextLinesText = (lineBreak: string): fc.Arbitrary<Shape & { keep: string; joinable: boolean }> =>
  fc
    .tuple(
      fc.integer({ min: 0, max: 6 }),
      fc.constantFrom("", "- ", "INFO loaded: "),
      fc.tuple(keyName, fc.constantFrom("", '"', "'")),
      fc.constantFrom(...LINE_HEADS),
      fc.array(
        fc.tuple(fc.integer({ min: 1, max: 5 }), unquotedValue, quotedValue('"'), fc.nat({ max: 3 })),
        { minLength: 1, maxLength: 3 },
      ),
      fc.boolean(),
      fc.integer({ min: 0, max: 6 }),
      // Lower case only: no canary (each holds a capital) is part of it.
      fromAlphabet(LOWER, 7, 10),
    )
    .map(([indent, lead, [key, quote], head, lines, list, back, keep]) => {
      const pad = " ".repeat(indent);
      // Prose before the key makes its line unindented whatever `indent` says.
      const keyLine = lead.startsWith("INFO")
        ? `${lead}${quote}${key}${quote}:`
        : `${pad}${lead}${quote}${key}${quote}:`;
      const own = lead.startsWith("INFO") ? 0 : indent;
      const canaries: string[] = [];
      const body: string[] = [];
      const first = lines[0]![0];
      for (const [k, [deeper, bare, quoted, how]] of lines.entries()) {
        const value = how === 0 ? bare : { text: `"${quoted.text}"`, canaries: quoted.canaries };
        canaries.push(...value.canaries);
        // The rest at least as deep as the first (less deep ends the value: a documented residue).
        const depth = k === 0 ? first : first + (deeper % 3);
        // A compact list sits at the key's own indentation (under a plain key only).
        const at =
          list && head === "" && !lead.startsWith("INFO") ? `${" ".repeat(own)}- ` : " ".repeat(own + depth);
        body.push(`${at}${how === 1 ? `${value.text}: x` : value.text}`);
        if (how === 2) body.push("");
      }
      const sibling = `${" ".repeat(Math.min(back, own))}user: ${keep}`;
      const text = [
        "config:",
        keyLine + (head === "" ? "" : ` ${head}`.replace("  ", " ")),
        ...body,
        sibling,
      ].join(lineBreak);
      // A structured message's breaks are dropped before redaction (`password: a  b`): a plain value
      // of several lines then reads as its first word (a documented residue of pages).
      // (A tag or an anchor with the value after it on one line is YAML's own form: no header.)
      const joinable =
        lines.length === 1 ||
        (head.trim() !== "" && !/^[!&]/.test(head)) ||
        (list && head === "" && !lead.startsWith("INFO"));
      return {
        text,
        canaries,
        keep,
        joinable,
        family: `next-lines/${JSON.stringify(head)}/${lead || "plain"}`,
      };
    });

/**
 * `nextLinesText` JSON-escaped into one line (depth 1–3), as a log field holding YAML; at depth 1 a
 * page reads the field with its breaks dropped, so only values that stay whole once joined.
 */
export const nextLinesShape: fc.Arbitrary<Shape> = fc
  .tuple(nextLinesText("\n"), fc.integer({ min: 1, max: 3 }), fc.constantFrom("", '{"level":"info",'))
  .filter(([shape, depth]) => depth > 1 || shape.joinable)
  .map(([shape, depth, open]) => ({
    text: `${open || "{"}"msg":"${escapeDepth(shape.text, depth, false)}","ts":1}`,
    canaries: shape.canaries,
    family: `${shape.family}/depth${depth}`,
  }));

/** Any of the above. */
export const anyShape: fc.Arbitrary<Shape> = fc.oneof(
  { weight: 5, arbitrary: keyValueShape },
  { weight: 2, arbitrary: urlShape },
  { weight: 3, arbitrary: providerShape },
  { weight: 1, arbitrary: identityShape },
  { weight: 1, arbitrary: markerShape },
  { weight: 2, arbitrary: commandShape },
  { weight: 1, arbitrary: twoWordKeyShape },
  { weight: 1, arbitrary: structureShape },
  { weight: 1, arbitrary: positionalCallShape },
  { weight: 1, arbitrary: nextLinesShape },
);

/** Output text with the CLI-style escapes of invisible characters taken out, for canary search. */
export function visible(out: string): string {
  return out.replace(/\\u\{[0-9A-F]{1,6}\}/g, "");
}

/** The canaries of `shapes` found in `out`. */
export function leaks(
  shapes: readonly Shape[],
  out: string,
): Array<{ family: string; canary: string; text: string }> {
  const v = visible(out);
  const found: Array<{ family: string; canary: string; text: string }> = [];
  for (const s of shapes)
    for (const c of s.canaries) if (v.includes(c)) found.push({ family: s.family, canary: c, text: s.text });
  return found;
}

const HEX = "0123456789abcdef";
const B64URL = `${ALNUM}_-`;
const B64 = `${ALNUM}+/`;

/** Exact shapes the public catalogs document (so an independent scanner recognizes them too). */
const CATALOG: Array<fc.Arbitrary<string>> = [
  fromAlphabet(ALNUM, 36, 36).map((b) => `ghp_${b}`),
  fromAlphabet(ALNUM, 36, 36).map((b) => `gho_${b}`),
  fromAlphabet(`${ALNUM}_`, 82, 82).map((b) => `github_pat_${b}`),
  fromAlphabet(B64URL, 20, 40).map((b) => `glpat-${b}`),
  fc
    .tuple(fromAlphabet(DIGITS, 10, 12), fromAlphabet(DIGITS, 12, 13), fromAlphabet(ALNUM, 24, 24))
    .map(([a, b, c]) => `xoxb-${a}-${b}-${c}`),
  fromAlphabet(ALNUM, 36, 36).map((b) => `npm_${b}`),
  fromAlphabet(UPPER + DIGITS, 16, 16).map((b) => `AKIA${b.slice(0, 14)}Q7`),
  fromAlphabet(B64URL, 93, 93).map((b) => `sk-ant-api03-${b}AA`),
  fc.tuple(fromAlphabet(ALNUM, 20, 20), fromAlphabet(ALNUM, 20, 20)).map(([a, b]) => `sk-${a}T3BlbkFJ${b}`),
  fromAlphabet(UPPER + LOWER, 34, 34).map((b) => `hf_${b}`),
  fc
    .tuple(fromAlphabet(`${ALNUM}_`, 22, 22), fromAlphabet(`${ALNUM}_`, 43, 43))
    .map(([a, b]) => `SG.${a}.${b}`),
  fromAlphabet(HEX, 32, 32).map((b) => `shpat_${b}`),
  fromAlphabet(ALNUM, 24, 40).map((b) => `sk_live_${b}`),
  fromAlphabet(ALNUM, 24, 40).map((b) => `rk_test_${b}`),
  fromAlphabet(B64URL, 27, 27).map((b) => `dckr_pat_${b}`),
  fromAlphabet(HEX, 32, 32).map((b) => `dapi${b}`),
  fromAlphabet(B64, 40, 80).map((b) => `glc_eyJ${b}`),
  fc.tuple(fromAlphabet(ALNUM, 32, 32), fromAlphabet(HEX, 8, 8)).map(([a, b]) => `glsa_${a}_${b}`),
  fromAlphabet(B64URL, 90, 100).map((b) => `hvs.${b}`),
  fromAlphabet(`${ALNUM}_`, 40, 40).map((b) => `lin_api_${b}`),
  fc.tuple(fromAlphabet(DIGITS, 11, 11), fromAlphabet(ALNUM, 35, 35)).map(([a, b]) => `ntn_${a}${b}`),
  fromAlphabet(ALNUM, 52, 52).map((b) => `gsk_${b}`),
  fromAlphabet(B64URL, 40, 60).map((b) => `figd_${b}`),
  fromAlphabet(ALNUM, 24, 40).map((b) => `vcp_${b}`),
  fc.tuple(fromAlphabet(ALNUM, 40, 40), fromAlphabet(HEX, 8, 8)).map(([a, b]) => `cfk_${a}${b}`),
  fc
    .tuple(fromAlphabet(`${ALNUM}_`, 12, 12), fromAlphabet(`${ALNUM}_`, 30, 30))
    .map(([a, b]) => `tskey-api-${a}-${b}`),
  fc.tuple(segment, segment).map(([u, p]) => `https://${u.toLowerCase()}:${p}@example.com`),
  fc.tuple(segment, segment).map(([u, p]) => `postgres://${u}:${p}@db.internal:5432/app`),
  fc.tuple(segment, segment).map(([u, p]) => `mongodb+srv://${u}:${p}@cluster0.example.net/db`),
  fc.tuple(segment, segment).map(([u, p]) => `mysql://${u}:${p}@db:3306/app`),
  fromAlphabet(ALNUM, 40, 40).map((b) => `aws_secret_access_key = ${b}`),
  fromAlphabet(ALNUM, 40, 40).map((b) => `"AWS_SECRET_ACCESS_KEY": "${b}"`),
  fromAlphabet(DIGITS, 12, 12).map((b) => `aws_account_id = ${b.slice(0, 4)}-${b.slice(4, 8)}-${b.slice(8)}`),
  fromAlphabet(DIGITS, 12, 12).map((b) => `AWS_ACCOUNT_ID: "${b}"`),
  fc
    .tuple(fromAlphabet(ALNUM, 9, 9), fromAlphabet(ALNUM, 9, 9), fromAlphabet(ALNUM, 24, 24))
    .map(([a, b, c]) => `https://hooks.slack.com/services/T${a}/B${b}/${c}`),
  fromAlphabet(B64URL, 36, 36).map((b) => `//registry.npmjs.org/:_authToken=${b}`),
  fromAlphabet(ALNUM, 40, 40).map((b) => `https://${b}:x-oauth-basic@github.com/org/repo`),
];

/** A catalog shape in a context: plain, as a value, in JSON (escaped 0–2 times), in an argument list. */
export const catalogShape: fc.Arbitrary<Shape> = fc
  .tuple(fc.oneof(...CATALOG), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 2 }))
  .map(([secret, ctx, depth]) => {
    const core =
      secret.includes("://") || secret.includes("=") || secret.includes(": ")
        ? secret
        : [
            secret,
            `token=${secret}`,
            `{"credential": "${secret}"}`,
            `curl -H "X-Key: ${secret}" https://api.example.com`,
            `export API_KEY='${secret}'`,
          ][ctx]!;
    const canaries = secret
      .split(/[^A-Za-z0-9]+/)
      .filter((p) => p.length >= 12)
      .map((p) => p.slice(-12));
    return {
      text: `INFO ${escapeDepth(core, depth, false)} ok`,
      canaries,
      family: `catalog/${secret.slice(0, 8)}`,
    };
  });
