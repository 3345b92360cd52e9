/**
 * `token`, `aws-key`, `google-key`: provider tokens recognized by their documented prefixes. The
 * prefixes and shapes are facts from the providers' documentation and the public secret-scanner
 * catalogs (gitleaks, secretlint, trufflehog); each entry has a test (test/unit/redact/providers).
 * A token is masked whole: the prefix and every token character after it (an earlier marker inside
 * it does not end it), and what a token holds before its prefix (a lead: Telegram's bot id).
 */
import { M, type RedactionKind } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { codesOf, isAlnum, isLetter, MARK_CODE, OTHER_CODE, splice, textCodes } from "../scan.ts";

/** Character sets a token's body (or lead) is made of. */
const Body = {
  /** `[A-Za-z0-9_-]` */
  Url: 1,
  /** `[A-Za-z0-9_.-]` */
  Dotted: 2,
  /** `[A-Za-z0-9+/=_-]` (base64 of either alphabet, with padding) */
  Base64: 3,
  /** `[0-9a-fA-F]` */
  Hex: 4,
  /** `[A-Z0-9]` */
  Upper: 5,
  /** `[A-Za-z0-9_/-]`: a URL path of tokens (webhook URLs) */
  Path: 6,
  /** any non-whitespace (`SharedAccessSignature sr=…&sig=…`) */
  Word: 7,
  /** `[0-9]` */
  Digit: 8,
  /** `[A-Za-z0-9_.~]` */
  Tilde: 9,
  /** `[A-Za-z0-9_.~-]`: the characters a URL leaves unescaped */
  Unreserved: 10,
  /** `[A-Za-z0-9]` */
  Alnum: 11,
} as const;
type Body = (typeof Body)[keyof typeof Body];

interface Provider {
  prefix: string;
  /** Fewest body characters that make it a token. */
  min: number;
  body: Body;
  kind?: RedactionKind;
  /** Must not follow a letter or digit (short or upper-case prefixes that occur inside words). */
  strict?: boolean;
  /**
   * What the token holds right before its prefix, masked with it: a whole run of `min` to `max`
   * characters of `body` (a longer run is something else; a marker before it is a boundary, not a
   * part). It may follow a letter (`/bot<id>:A…`): the run's length is its boundary.
   */
  lead?: { body: Body; min: number; max: number };
  /**
   * The characters of a checksum that may follow the body after `=` (Atlassian's 8 hex digits),
   * masked with it: the whole run of them, and nothing past it.
   */
  checksum?: Body;
}

const t = (prefix: string, min: number, body: Body = Body.Url, extra: Partial<Provider> = {}): Provider => ({
  prefix,
  min,
  body,
  ...extra,
});
const aws = (prefix: string): Provider => t(prefix, 16, Body.Upper, { kind: "aws-key", strict: true });
const DIGITS = [..."0123456789"];

/** The catalog. */
export const PROVIDERS: readonly Provider[] = [
  // OpenAI (sk-proj-, sk-svcacct-, sk-admin-), Anthropic (sk-ant-api03-), OpenRouter, DeepSeek …
  t("sk-", 8),
  // Stripe
  t("sk_live_", 8),
  t("sk_test_", 8),
  t("rk_live_", 8),
  t("rk_test_", 8),
  t("whsec_", 16),
  // GitHub
  ...["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"].map((p) => t(p, 8)),
  // Slack
  ...["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxe-", "xoxe.xoxp-", "xoxs-", "xoxo-", "xapp-"].map((p) =>
    t(p, 8),
  ),
  t("hooks.slack.com/services/", 16, Body.Path),
  t("discord.com/api/webhooks/", 16, Body.Path),
  t("discordapp.com/api/webhooks/", 16, Body.Path),
  // GitLab
  ...[
    "glpat-",
    "gldt-",
    "glrt-",
    "glsoat-",
    "glptt-",
    "glft-",
    "glimt-",
    "glagent-",
    "glcbt-",
    "gloas-",
    "glffct-",
  ].map((p) => t(p, 8)),
  t("GR1348941", 16, Body.Url, { strict: true }),
  // npm, PyPI, RubyGems, Clojars
  t("npm_", 8),
  t("pypi-AgEIcHlwaS5vcmc", 16, Body.Base64),
  t("rubygems_", 32),
  t("CLOJARS_", 32),
  // Hugging Face
  t("hf_", 30),
  t("api_org_", 30),
  // AWS access key IDs (and the other unique-ID prefixes the catalogs list)
  ...["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"].map(aws),
  ...["A3T"].map((p) => t(p, 17, Body.Upper, { kind: "aws-key", strict: true })),
  // Google
  t("AIza", 30, Body.Url, { kind: "google-key" }),
  t("GOCSPX-", 20),
  t("ya29.", 20, Body.Dotted),
  // age
  t("AGE-SECRET-KEY-1", 40, Body.Upper),
  // Azure shared access signatures
  t("SharedAccessSignature ", 8, Body.Word),
  // Docker, Databricks, Grafana, Vault
  t("dckr_pat_", 20),
  t("dckr_oat_", 20),
  t("dapi", 32, Body.Hex, { strict: true }),
  t("glc_", 32, Body.Base64),
  t("glsa_", 32),
  t("eyJrIjoi", 40, Body.Base64),
  t("hvs.", 24),
  t("hvb.", 24),
  t("hvr.", 24),
  // DigitalOcean
  t("dop_v1_", 32),
  t("doo_v1_", 32),
  t("dor_v1_", 32),
  // Shopify
  ...["shpat_", "shpca_", "shppa_", "shpss_"].map((p) => t(p, 20)),
  // SendGrid, Mailgun, Brevo
  t("SG.", 16, Body.Dotted, { strict: true }),
  t("key-", 32, Body.Hex),
  t("xkeysib-", 32),
  // Linear, Doppler, Pulumi, Postman
  t("lin_api_", 20),
  t("lin_oauth_", 20),
  ...["dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."].map((p) => t(p, 20)),
  t("pul-", 32),
  t("PMAK-", 20),
  // Twilio API key SID
  t("SK", 32, Body.Hex, { strict: true }),
  // Vercel, Cloudflare, Tailscale, Figma, Notion, Groq, 1Password
  ...["vcp_", "vci_", "vca_", "vcr_", "vck_"].map((p) => t(p, 20)),
  ...["cfk_", "cfut_", "cfat_"].map((p) => t(p, 40)),
  t("tskey-", 16),
  t("figd_", 32),
  t("ntn_", 40),
  t("gsk_", 40),
  t("ops_eyJ", 40, Body.Base64),
  // Atlassian (API tokens and admin API keys, which end in `=` and a checksum), Bitbucket, Heroku,
  // Sentry, Square, Contentful, Dynatrace, New Relic
  t("ATATT3", 40, Body.Url, { strict: true, checksum: Body.Alnum }),
  t("ATCTT3", 40, Body.Url, { strict: true, checksum: Body.Alnum }),
  t("ATBB", 28, Body.Url, { strict: true }),
  t("HRKU-", 20),
  t("sntrys_", 32, Body.Base64),
  t("sntryu_", 32),
  t("sq0atp-", 20),
  t("sq0csp-", 20),
  t("CFPAT-", 20),
  t("dt0c01.", 20, Body.Dotted),
  ...["NRAK-", "NRJS-", "NRII-"].map((p) => t(p, 20)),
  // Fly.io, PlanetScale, Prefect, ReadMe, Sourcegraph, Typeform, Supabase, Netlify, Render
  t("fo1_", 20),
  t("fm1r_", 20),
  t("fm2_", 20),
  ...["pscale_tkn_", "pscale_pw_", "pscale_oauth_"].map((p) => t(p, 20)),
  t("pnu_", 30),
  t("rdme_", 30),
  t("sgp_", 20),
  t("tfp_", 20),
  t("sbp_", 30),
  t("sb_secret_", 20),
  t("nfp_", 30),
  t("rnd_", 20),
  // Replicate, xAI, Perplexity, Buildkite, CircleCI, Shippo, Duffel, Flutterwave, Alibaba, JFrog
  t("r8_", 30),
  t("xai-", 30),
  t("pplx-", 30),
  // What an agent's tools and models are called with: LangSmith, Tavily, Firecrawl, Fireworks,
  // Browserbase, E2B, Modal's token secret, ElevenLabs, Pinecone, Cerebras, NVIDIA, Jina
  t("lsv2_pt_", 32),
  t("lsv2_sk_", 32),
  t("tvly-", 24),
  t("fc-", 32, Body.Hex, { strict: true }),
  t("fw_", 20, Body.Alnum, { strict: true }),
  t("bb_live_", 20),
  t("e2b_", 40, Body.Hex),
  t("as-", 22, Body.Alnum, { strict: true }),
  t("sk_", 48, Body.Hex, { strict: true }),
  t("pcsk_", 40),
  t("csk-", 40, Body.Alnum),
  t("nvapi-", 40),
  t("jina_", 40, Body.Alnum),
  t("bkua_", 30),
  t("CCIPAT_", 20),
  t("shippo_live_", 30),
  t("shippo_test_", 30),
  t("duffel_live_", 30),
  t("duffel_test_", 30),
  t("FLWSECK-", 20),
  t("FLWSECK_TEST-", 20),
  t("LTAI", 20, Body.Url, { strict: true }),
  t("AKCp", 60, Body.Url, { strict: true }),
  // JFrog reference tokens, EasyPost, Frame.io, Apify, Square access tokens, Dropbox short-lived
  t("cmVmdGtu", 56, Body.Url, { strict: true }),
  t("EZAK", 54, Body.Url, { strict: true }),
  t("EZTK", 54, Body.Url, { strict: true }),
  t("frio_", 40, Body.Base64),
  t("apify_api_", 30),
  t("EAAA", 60, Body.Url, { strict: true }),
  t("sl.", 120, Body.Base64, { strict: true }),
  // Mapbox secret tokens, OpenShift
  t("sk.eyJ", 40, Body.Dotted),
  t("sha256~", 40),
  // Tokens whose prefix is inside them: the span reaches back over the lead before it, in the same
  // scan. A digit that the shape puts right before a literal opens the prefix (`7:A` is far rarer
  // in text than `:A`, and the trigger pass reads three characters).
  // Telegram bot tokens: a bot id of 5–16 digits, `:A` and 34 more
  ...DIGITS.map((d) => t(`${d}:A`, 34, Body.Url, { lead: { body: Body.Digit, min: 4, max: 15 } })),
  // Azure AD (Entra ID) client secrets: 3 of `[A-Za-z0-9_.~]`, a digit, `Q~` and 31–34 more of
  // `[A-Za-z0-9_.~-]` (all of a longer run is masked: a sentence's full stop may end one)
  ...DIGITS.map((d) => t(`${d}Q~`, 31, Body.Unreserved, { lead: { body: Body.Tilde, min: 3, max: 3 } })),
];

/** Whether the ASCII code `c` is a character of `body`. */
function holds(body: Body, c: number): boolean {
  const url = isAlnum(c) || c === /* _ */ 95 || c === /* - */ 45;
  const digit = c >= /* 0 */ 48 && c <= /* 9 */ 57;
  switch (body) {
    case Body.Url:
      return url;
    case Body.Dotted:
      return url || c === /* . */ 46;
    case Body.Base64:
      return url || c === /* + */ 43 || c === /* slash */ 47 || c === /* = */ 61;
    case Body.Hex:
      return digit || (c >= /* A */ 65 && c <= /* F */ 70) || (c >= /* a */ 97 && c <= /* f */ 102);
    case Body.Upper:
      return digit || (c >= /* A */ 65 && c <= /* Z */ 90);
    case Body.Path:
      return url || c === /* slash */ 47;
    case Body.Word:
      return c > /* space */ 0x20;
    case Body.Digit:
      return digit;
    case Body.Tilde:
      return isAlnum(c) || c === /* _ */ 95 || c === /* . */ 46 || c === /* ~ */ 126;
    case Body.Unreserved:
      return url || c === /* . */ 46 || c === /* ~ */ 126;
    case Body.Alnum:
      return isAlnum(c);
  }
}

/**
 * Per body kind, which codes (`textCodes`) a token body holds: its ASCII characters, placeholders
 * always, other non-ASCII characters only in a `Word`.
 */
const BODY_CHARS: Uint8Array[] = [];
for (const body of Object.values(Body)) {
  const t = new Uint8Array(256);
  for (let c = 0; c < 128; c++) t[c] = Number(holds(body, c));
  t[MARK_CODE] = 1;
  t[OTHER_CODE] = Number(body === Body.Word);
  BODY_CHARS[body] = t;
}

/** End of the token body that starts at `i` (`codes`: the text's, ending in a zero code). */
function bodyEnd(codes: Uint8Array, i: number, body: Body): number {
  const t = BODY_CHARS[body]!;
  while (t[codes[i]!] === 1) i++;
  return i;
}

const isHexCode = (c: number): boolean =>
  (c >= /* 0 */ 48 && c <= /* 9 */ 57) ||
  (c >= /* A */ 65 && c <= /* F */ 70) ||
  (c >= /* a */ 97 && c <= /* f */ 102);

/**
 * Whether an escape sequence ends right before `i`: a backslash and a letter (`\n`, `\t`), JSON's
 * `\u000a`, `\x0a`, or a percent-encoded character (`%0A`, `%3D`).
 */
function escapeEndsAt(codes: Uint8Array, i: number): boolean {
  if (i >= 2 && codes[i - 2] === /* backslash */ 92 && isLetter(codes[i - 1]!)) return true;
  if (i >= 3 && codes[i - 3] === /* % */ 37 && isHexCode(codes[i - 2]!) && isHexCode(codes[i - 1]!))
    return true;
  if (i >= 4 && codes[i - 4] === /* backslash */ 92 && codes[i - 3] === /* x */ 120) return true;
  return (
    i >= 6 &&
    codes[i - 6] === /* backslash */ 92 &&
    codes[i - 5] === /* u */ 117 &&
    isHexCode(codes[i - 4]!) &&
    isHexCode(codes[i - 3]!) &&
    isHexCode(codes[i - 2]!) &&
    isHexCode(codes[i - 1]!)
  );
}

/** Start of the lead that ends before `i`, or -1 if the run there is not one (too short or too long). */
function leadStart(codes: Uint8Array, i: number, lead: NonNullable<Provider["lead"]>): number {
  const t = BODY_CHARS[lead.body]!;
  let k = i;
  // One character past `max` is enough to refuse the run; an escape sequence before it ends it.
  while (
    k > 0 &&
    i - k <= lead.max &&
    codes[k - 1] !== MARK_CODE &&
    t[codes[k - 1]!] === 1 &&
    !escapeEndsAt(codes, k)
  )
    k--;
  return i - k >= lead.min && i - k <= lead.max ? k : -1;
}

/** A provider with its prefix's character codes (prefixes are ASCII), compared with the text's codes. */
interface Candidate {
  provider: Provider;
  prefix: Uint8Array;
}

/** Candidates by the pair of their first two characters (case-sensitive), longest prefix first. */
const BY_PAIR = new Uint16Array(128 * 128);
const LISTS: Candidate[][] = [[]];
for (const p of [...PROVIDERS].sort((a, b) => b.prefix.length - a.prefix.length)) {
  const key = p.prefix.charCodeAt(0) * 128 + p.prefix.charCodeAt(1);
  if (BY_PAIR[key] === 0) {
    BY_PAIR[key] = LISTS.length;
    LISTS.push([]);
  }
  LISTS[BY_PAIR[key]!]!.push({ provider: p, prefix: Uint8Array.from(p.prefix, (ch) => ch.charCodeAt(0)) });
}

/**
 * Per candidate list, the third characters its prefixes have (every character, where one prefix
 * is two long): random text begins some prefix's pair at one place in twenty-five, a prefix's
 * first three characters at few.
 */
const THIRD = new Uint8Array(LISTS.length * 128);
LISTS.forEach((list, id) => {
  for (const { prefix } of list)
    if (prefix.length < 3) THIRD.fill(1, id * 128, id * 128 + 128);
    else THIRD[id * 128 + prefix[2]!] = 1;
});

/**
 * The provider whose prefix is at `i` (candidates `LISTS[id]`, whose first two characters are
 * there), if it may start a token there; where the token starts (before its lead) goes to `at[0]`.
 * `codes`: the text's codes, ending in a zero code, which no prefix holds.
 */
function providerIn(codes: Uint8Array, i: number, id: number, at: number[]): Provider | undefined {
  /** The code before the prefix; read once a prefix is there (most pairs begin none). */
  let before = -1;
  for (const { provider, prefix } of LISTS[id]!) {
    const { lead } = provider;
    let k = 2;
    while (k < prefix.length && codes[i + k] === prefix[k]) k++;
    if (k < prefix.length) continue;
    // An escape sequence ends at a boundary, though it ends in a letter or digit (a JSON string's
    // `\n` before a token on the next line of a message).
    if (before < 0) before = i > 0 && !escapeEndsAt(codes, i) ? codes[i - 1]! : /* space */ 32;
    if (lead === undefined && isLetter(before)) continue;
    if (lead !== undefined) {
      const start = leadStart(codes, i, lead);
      if (start < 0) continue;
      at[0] = start;
      return provider;
    }
    if (provider.strict === true && isAlnum(before)) continue;
    at[0] = i;
    return provider;
  }
  return undefined;
}

/**
 * The first provider token whose prefix is at or after `from`: its `[start, end)` in `out` (and
 * its provider as the return value), or undefined. One table load per character (two where a
 * prefix's pair begins).
 */
function nextToken(s: string, codes: Uint8Array, from: number, out: number[]): Provider | undefined {
  const n = s.length;
  let c = codes[from]! & 127;
  for (let i = from; i + 1 < n; i++) {
    const d = codes[i + 1]! & 127;
    const id = BY_PAIR[(c << 7) | d]!;
    c = d;
    if (id === 0 || THIRD[(id << 7) | (codes[i + 2]! & 127)] === 0) continue;
    const p = providerIn(codes, i, id, out);
    if (p === undefined) continue;
    const bodyStart = i + p.prefix.length;
    let end = bodyEnd(codes, bodyStart, p.body);
    if (end - bodyStart < p.min) continue;
    if (p.checksum !== undefined && codes[end] === /* = */ 61) {
      const sum = bodyEnd(codes, end + 1, p.checksum);
      if (sum > end + 1) end = sum;
    }
    out[1] = end;
    return p;
  }
  return undefined;
}

/** Whether a provider prefix occurs anywhere in `s` (a key id must not pose as a token). */
export function holdsProviderPrefix(s: string): boolean {
  const codes = codesOf(s, false, OTHER_CODE, MARK_CODE);
  const start = [0];
  for (let i = 0; i + 1 < s.length; i++) {
    const id = BY_PAIR[((codes[i]! & 127) << 7) | (codes[i + 1]! & 127)]!;
    if (id !== 0 && providerIn(codes, i, id, start) !== undefined) return true;
  }
  return false;
}

const found = [0, 0];

function providerRule(s: string): string {
  const codes = textCodes(s);
  let p = nextToken(s, codes, 0, found);
  if (p === undefined) return s;
  const spans: number[] = [];
  const reps: string[] = [];
  while (p !== undefined) {
    spans.push(found[0]!, found[1]!);
    reps.push(M[p.kind ?? "token"]);
    p = nextToken(s, codes, found[1]!, found);
  }
  return splice(s, spans, reps);
}

export const providerTokens: Rule = {
  name: "provider-tokens",
  words: [],
  prefixes: PROVIDERS.map((p) => p.prefix),
  apply: providerRule,
};
