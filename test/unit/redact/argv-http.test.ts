/**
 * The argv rule's HTTP clients: curl's certificate passphrase (`-E cert.pem:v`, `--cert`,
 * `--proxy-cert`; a Windows drive's colon and a PKCS#11 URI are no separator), curl's inline cookie
 * (`-b "name=v"`, `--cookie`), HTTPie's and xh's `-a user:password`, `--auth` and a bearer token,
 * options clustered or not, values attached or not, in every quoting, with random blanks, the
 * command's name in any case (Windows runs it so), in the places a command sits on a line. Near
 * misses (a certificate without a passphrase, a cookie file, `-E` and `-b` of other commands, a user
 * without a password) stay byte for byte.
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

/** Certificates, with the colon before their passphrase (a Windows drive's colon is none). */
const CERTS = [
  "cert.pem:",
  "./client.p12:",
  "/etc/ssl/client.pem:",
  "C:\\certs\\client.pem:",
  "C:/certs/c.pem:",
  "~/c.pem:",
];
/** Cookies given inline: one or several pairs, the secret the last value. */
const COOKIES = ["session=", "sid=", "theme=dark; session=", "a=1;sid="];
const USERS = ["admin:", "ci-bot:", "alice@example.com:"];

/** How an option and its value are written (`o`: the option's letter, `long`: its long name). */
type Spelling = (o: string, long: string, v: string, b: string) => string;
const SPELLINGS: Spelling[] = [
  (o, _, v, b) => `-${o}${b}${v}`,
  (o, _, v) => `-${o}${v}`,
  (o, _, v, b) => `-sS${o}${b}${v}`,
  (o, _, v) => `-k${o}${v}`,
  (_, long, v, b) => `--${long}${b}${v}`,
];
const HTTPIE_SPELLINGS: Spelling[] = [
  ...SPELLINGS.slice(0, 2),
  (_, long, v) => `--${long}=${v}`,
  SPELLINGS[4]!,
];

const CURL_URLS = [
  "https://api.example.com/v1/items",
  "-x proxy.internal:3128 https://api.example.com",
  "-o out.json https://x.example",
];

/** One command line with a credential, its canaries. */
const credential = fc
  .tuple(
    fc.integer({ min: 0, max: 4 }),
    secretWordAfter(CERTS),
    secretWordAfter(COOKIES),
    secretWordAfter(USERS),
    secretWordAfter([""]),
    fc.nat(),
    fc.array(blank, { minLength: 4, maxLength: 4 }),
    fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
  )
  .map(([kind, cert, cookie, user, token, pick, b, upper]) => {
    const url = CURL_URLS[pick % CURL_URLS.length]!;
    const curl = anyCase(pick & 8 ? "curl.exe" : "curl", upper);
    const spelling = SPELLINGS[(pick >> 4) % SPELLINGS.length]!;
    const httpie = anyCase(["http", "https", "httpie", "xh", "xhs"][(pick >> 8) % 5]!, upper);
    const httpieSpelling = HTTPIE_SPELLINGS[(pick >> 4) % HTTPIE_SPELLINGS.length]!;
    switch (kind) {
      case 0: {
        const long = pick & 1 ? "cert" : "proxy-cert";
        const option =
          long === "cert" ? spelling("E", long, cert.text, b[1]!) : `--proxy-cert${b[1]}${cert.text}`;
        return { text: `${curl}${b[0]}${option}${b[2]}${url}`, canaries: cert.canaries };
      }
      case 1:
        return {
          text: `${curl}${b[0]}${spelling("b", "cookie", cookie.text, b[1]!)}${b[2]}${url}`,
          canaries: cookie.canaries,
        };
      case 2:
        return {
          text: `${httpie}${b[0]}${httpieSpelling("a", "auth", user.text, b[1]!)}${b[2]}POST api.example.com/items name=x`,
          canaries: user.canaries,
        };
      case 3: {
        // A bearer token: no colon, the auth type said before or after it.
        const type = pick & 1 ? "-A bearer" : "--auth-type=bearer";
        const auth = httpieSpelling("a", "auth", token.text, b[1]!);
        const line = pick & 2 ? `${type}${b[2]}${auth}` : `${auth}${b[2]}${type}`;
        return { text: `${httpie}${b[0]}${line} GET api.example.com/me`, canaries: token.canaries };
      }
      default:
        // curl's `-u` beside the others, for a line of several credentials.
        return {
          text: `${curl} -u ${user.text}${b[0]}-E ${cert.text}${b[1]}-b ${cookie.text} ${url}`,
          canaries: [...user.canaries, ...cert.canaries, ...cookie.canaries],
        };
    }
  });

/** Options that only look like the above: no passphrase, a cookie file, other commands' `-E`, `-b`, `-a`. */
const NEAR_MISSES: Array<(b: string, c: (w: string) => string) => string> = [
  (b, c) => `${c("curl")} -E${b}cert.pem https://api.example.com`,
  (b, c) => `${c("curl")} --cert${b}client.pem --key${b}client.key https://api.example.com`,
  (b, c) => `${c("curl")} -E 'C:\\certs\\client.pem'${b}https://x.example`,
  (b, c) => `${c("curl")} --cert${b}C:/certs/c.pem https://x.example`,
  (b, c) => `${c("curl")} -sSE "pkcs11:object=client;type=cert"${b}https://x.example`,
  (b, c) => `${c("curl")} -b${b}cookies.txt https://x.example`,
  (b, c) => `${c("curl")} -b '' -c${b}jar.txt https://x.example`,
  // (Not `--cookie FILE`: key-value masks any value of a flag named cookie, a file's name too.)
  (b, c) => `${c("curl")} -sSLo out.html${b}-e https://ref.example/ https://x.example`,
  (b, c) => `${c("curl")} -H 'Accept: application/json'${b}-x proxy:3128 https://x.example`,
  (b) => `grep -E 'a:b|c'${b}file.txt`,
  (b) => `sudo -E${b}env | sed -E 's/a:b/c/'`,
  (b) => `wget --certificate=client.pem${b}https://x.example`,
  (b, c) => `${c("http")} -a${b}alice GET https://x.example`,
  (b, c) => `${c("https")} -v${b}api.example.com`,
  (b, c) => `${c("http")} --auth-type=bearer GET${b}api.example.com`,
  (b, c) => `${c("http")} -b${b}api.example.com/items`,
  (b, c) => `${c("xh")} -a bob${b}api.example.com`,
  (b) => `ssh -E /var/log/ssh.log${b}deploy@host`,
];

describe("argv: HTTP clients' credentials", () => {
  it("are masked whole: curl's passphrase and cookie, HTTPie's and xh's auth (generated)", () => {
    const shape = fc.tuple(credential, context).map(([c, at]) => ({
      text: CONTEXTS[at]!(c.text),
      canaries: c.canaries,
      family: "http-client",
    }));
    masksEach(shape, 1500);
  });

  it("leave options that only look like them byte for byte (generated near misses)", () => {
    const line = fc
      .tuple(
        fc.integer({ min: 0, max: NEAR_MISSES.length - 1 }),
        blank,
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        closedContext,
      )
      .map(([form, b, upper, at]) => CONTEXTS[at]!(NEAR_MISSES[form]!(b, (w) => anyCase(w, upper))));
    leavesEach(line, 800);
  });

  it.each([
    ["curl -E cert.pem:Zq8xKv7mWpL3 https://x", "curl -E cert.pem:[redacted:argv] https://x"],
    ["curl --cert cert.pem:Zq8xKv7mWpL3 https://x", "curl --cert cert.pem:[redacted:argv] https://x"],
    ["curl -E C:\\certs\\c.pem:Zq8xKv7mWpL3 https://x", "curl -E C:\\certs\\c.pem:[redacted:argv] https://x"],
    ['curl -b "session=Zq8xKv7mWpL3" https://x', 'curl -b "[redacted:argv]" https://x'],
    ['curl --cookie "session=Zq8xKv7mWpL3" https://x', 'curl --cookie "[redacted:argv]" https://x'],
    ["http -a admin:Zq8xKv7mWpL3 GET x", "http -a [redacted:argv] GET x"],
    ["https -a admin:Zq8xKv7mWpL3 x", "https -a [redacted:argv] x"],
    ["http -A bearer -a Zq8xKv7mWpL3 x", "http -A bearer -a [redacted:argv] x"],
    ["curl -E cert.pem https://x", "curl -E cert.pem https://x"],
    ["curl -b cookies.txt https://x", "curl -b cookies.txt https://x"],
    ["http -a admin x", "http -a admin x"],
    ["http -a", "http -a"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});
