/**
 * The argv rule's commands that read a password from their standard input, fed from the command line
 * itself: echoed into a pipe, a here-string (`<<< v`), or a process substitution redirected in
 * (`< <(echo v)`), in every quoting, with random blanks, wherever the redirection sits in the
 * command, at the start of a line, after `&&`, `;` or `|`, inside a JSON string and among other text.
 * Near misses (the same input into a command that reads no password, a reader fed from a file, a
 * process substitution given as a file argument) stay byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactText } from "../../../lib/redact/index.ts";
import {
  blank,
  CONTEXTS,
  closedContext,
  joinWords,
  leavesEach,
  masksEach,
  secretWord,
  type Word,
} from "./argv-words.ts";
import { segment } from "./shapes.ts";

/**
 * Commands that read a password from stdin, as words; `from`: the first word after the command's
 * name, where a redirection may go (or before the name: `<<< v cmd` is a command too); `value`: what
 * the command reads, around the secret (chpasswd's `user:password`).
 */
const READERS: Array<{ words: string[]; from: number; value?: (secret: string) => string }> = [
  { words: ["docker", "login", "-u", "ci", "--password-stdin", "registry.example"], from: 2 },
  { words: ["podman", "login", "--username", "ci", "--password-stdin"], from: 2 },
  { words: ["helm", "registry", "login", "r.example", "-u", "ci", "--password-stdin"], from: 3 },
  { words: ["skopeo", "login", "--password-stdin", "-u", "ci", "quay.io"], from: 2 },
  { words: ["gh", "auth", "login", "--with-token"], from: 3 },
  { words: ["gh", "auth", "login", "--hostname", "ghe.example", "--with-token"], from: 3 },
  { words: ["glab", "auth", "login", "--stdin"], from: 3 },
  { words: ["glab", "auth", "login", "--hostname", "gitlab.example", "--stdin"], from: 3 },
  { words: ["vault", "login", "-"], from: 2 },
  { words: ["cargo", "login"], from: 2 },
  { words: ["cargo", "login", "--registry", "internal"], from: 2 },
  { words: ["gh", "secret", "set", "API_TOKEN"], from: 3 },
  { words: ["gh", "secret", "set", "API_TOKEN", "--repo", "org/app"], from: 3 },
  { words: ["npx", "wrangler", "secret", "put", "API_TOKEN"], from: 4 },
  { words: ["docker", "secret", "create", "db_pass", "-"], from: 3 },
  { words: ["gcloud", "secrets", "versions", "add", "db-pass", "--data-file=-"], from: 4 },
  { words: ["vercel", "env", "add", "API_TOKEN", "production"], from: 3 },
  { words: ["passwd", "--stdin", "bob"], from: 2 },
  { words: ["chpasswd"], from: 1, value: (v) => `bob:${v}` },
  { words: ["sudo", "chpasswd"], from: 2, value: (v) => `bob:${v}` },
];

/** Commands that read no password: what is redirected into them is their input, not a secret. */
const NON_READERS: string[][] = [
  ["cat"],
  ["grep", "-c", "x"],
  ["wc", "-l"],
  ["tr", "a-z", "A-Z"],
  ["base64", "-d"],
  ["jq", "."],
  ["read", "-r", "a", "b"],
  ["sort", "-u"],
  ["docker", "login", "-u", "ci", "registry.example"],
  ["gh", "auth", "status"],
  ["cargo", "build", "--release"],
];

/** How a line feeds `input` (a shell word, or the text a producer writes) to a command. */
const REDIRECTIONS: Array<(input: string, b: string) => string> = [
  (v, b) => `<<<${b}${v}`,
  (v) => `<<<${v}`,
  (v, b) => `<${b}<(echo${b}${v})`,
  (v, b) => `< <(echo -n${b}${v})`,
  (v, b) => `< <(printf${b}%s${b}${v})`,
  (v, b) => `0< <(printf '%s\\n' ${v}${b})`,
  (v, b) => `< <(${b}echo ${v}${b})`,
];

/** What writes `input` into a pipe to the command. */
const PRODUCERS: Array<(input: string, b: string) => string> = [
  (v, b) => `echo${b}${v}${b}|${b}`,
  (v) => `echo ${v}|`,
  (v, b) => `echo -n${b}${v} | `,
  (v, b) => `echo -e ${v}${b}| `,
  (v, b) => `printf${b}%s${b}${v} | `,
  (v) => `printf '%s\\n' ${v} | `,
  (v, b) => `cat${b}<<<${b}${v} | `,
  (v, b) => `cat < <(echo ${v})${b}|${b}`,
];

/** A line where `input` reaches `command` through one of the forms above, in one of the contexts. */
const fed = (commands: Array<{ words: string[]; from: number }>, input: fc.Arbitrary<Word>) =>
  fc
    .tuple(
      fc.integer({ min: 0, max: commands.length - 1 }),
      input,
      fc.array(blank, { minLength: 8, maxLength: 8 }),
      fc.boolean(),
      fc.nat(),
      fc.integer({ min: 0, max: CONTEXTS.length - 1 }),
    )
    .map(([which, word, blanks, piped, pick, context]) => {
      const { words, from } = commands[which]!;
      const value = (commands[which] as { value?: (v: string) => string }).value;
      const input = value === undefined ? word.text : value(word.text);
      let cmd: string;
      if (piped) {
        cmd =
          PRODUCERS[pick % PRODUCERS.length]!(input, blanks[0]!) +
          joinWords(words, blanks, words.length, "").trimEnd();
      } else {
        // The redirection after the command's name (anywhere among its arguments) or before it.
        const slots = words.length - from + 2;
        const slot = pick % slots;
        const at = slot === slots - 1 ? 0 : from + slot;
        const redirection = REDIRECTIONS[(pick >> 4) % REDIRECTIONS.length]!(input, blanks[1]!);
        cmd = joinWords(words, blanks, at, redirection);
      }
      const line = CONTEXTS[context]!(cmd);
      return {
        text: line,
        canaries: word.canaries,
        family: `${words.join(" ")}/${piped ? "pipe" : "redirect"}`,
      };
    });

describe("argv: a password fed to a command that reads it from stdin", () => {
  it("is masked whole: echoed into a pipe, a here-string, a process substitution (generated)", () => {
    masksEach(fed(READERS, secretWord), 1500, false);
  });

  it("stays byte for byte where no command reads it (generated near misses)", () => {
    const nonReaders = NON_READERS.map((words) => ({ words, from: 1 }));
    leavesEach(
      fed(nonReaders, secretWord).map((shape) => shape.text),
      800,
    );
  });

  it("stays byte for byte where a reader's input is a file or another command's (generated)", () => {
    // (Not `<token.txt 2>&1`: key-value reads `<token.txt 2>` as an XML element, see the report.)
    const files = fc.constantFrom("registry.txt", "/run/ci/registry", "~/.config/gh/hosts", '"$INPUT_FILE"');
    // Not `--with-token < file` nor `secret set NAME < file`: key-value reads the `<` as the value of
    // the flag or of the key being set, a wrong mask of its own (the secret is not there).
    const readers = READERS.filter(({ words }) => !words.includes("--with-token") && !words.includes("set"));
    const line = fc
      .tuple(fc.integer({ min: 0, max: readers.length - 1 }), files, blank, segment, fc.nat(), closedContext)
      .map(([which, file, b, other, form, at]) => {
        const cmd = readers[which]!.words.join(" ");
        const lines = [
          `${cmd}${b}<${b}${file}`,
          `${cmd} <${file}`,
          `${cmd}; cat <<< ${other}`,
          `echo ${other}; ${cmd} < ${file}`,
          `echo ${other} && cat ${file} | ${cmd}`,
          `cat <<< ${other} && ${cmd} < ${file}`,
          `diff <(echo ${other}) <(sort ${file}) && ${cmd} < ${file}`,
          `${cmd} <(echo ${other})`,
        ];
        return CONTEXTS[at]!(lines[form % lines.length]!);
      });
    leavesEach(line, 600);
  });

  it.each([
    [
      "docker login -u ci --password-stdin <<< Zq8xKv7mWpL3",
      "docker login -u ci --password-stdin <<< [redacted:argv]",
    ],
    [
      'docker login -u ci --password-stdin <<< "Zq8xKv7mWpL3"',
      'docker login -u ci --password-stdin <<< "[redacted:argv]"',
    ],
    [
      "docker login -u ci --password-stdin < <(echo Zq8xKv7mWpL3)",
      "docker login -u ci --password-stdin < <(echo [redacted:argv])",
    ],
    ["gh secret set X <<< Zq8xKv7mWpL3", "gh secret set X <<< [redacted:argv]"],
    ['chpasswd <<< "bob:Zq8xKv7mWpL3"', 'chpasswd <<< "[redacted:argv]"'],
    ["echo Zq8xKv7mWpL3 | gh auth login --with-token", "echo [redacted:argv] | gh auth login --with-token"],
    ["echo Zq8xKv7mWpL3 | vault login -", "echo [redacted:argv] | vault login -"],
    [
      "printf %s Zq8xKv7mWpL3 | docker login --password-stdin",
      "printf [redacted:argv] | docker login --password-stdin",
    ],
    [
      'echo "a|Zq8xKv7mWpL3" | docker login --password-stdin',
      "echo [redacted:argv] | docker login --password-stdin",
    ],
    ["cat <<< Zq8xKv7mWpL3 | cargo login", "cat <<< [redacted:argv] | cargo login"],
    ["cat <<< hello", "cat <<< hello"],
    // A redirection or a command's end after a flag is never its value.
    ["sort -u <<<a1:b2", "sort -u <<<a1:b2"],
    ["redis-cli -a && redis-cli ping", "redis-cli -a && redis-cli ping"],
    ["sshpass -p 2>/dev/null; mysql -p ;x", "sshpass -p 2>/dev/null; mysql -p ;x"],
    ["vault login > /dev/null && vault status", "vault login > /dev/null && vault status"],
    ["grep x < file", "grep x < file"],
    [
      "echo started; cat token | docker login --password-stdin",
      "echo started; cat token | docker login --password-stdin",
    ],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });

  it("keeps no part of a here-string after a flag that takes a token (`--with-token <<< v`)", () => {
    expect(redactText("gh auth login --with-token <<< Zq8xKv7mWpL3")).not.toContain("Zq8xKv7mWpL3");
  });
});
