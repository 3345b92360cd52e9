/**
 * Secrets the argv rule's commands are given beyond a flag's value, generated over the grammar (every
 * quoting, random blanks, the places a command sits on a line), each with near misses that stay byte
 * for byte:
 * - HTTPie's and xh's `-a` at the end of a cluster (`http -va u:v`, spaced or attached); not a user
 *   without a password, nor `a` taking another value (`-av`);
 * - `sudo -S`, which reads its password from stdin, fed every way (its options clustered, spelled
 *   long or after others that take a value); not `sudo -s`, `sudo pacman -S`, `-uS` (user `S`);
 * - a process substitution given to a flag that names a secret file (`--password-file <(echo v)`),
 *   or `/dev/stdin` named so; not `--config-file`, nor a substitution that echoes nothing;
 * - here-documents into a command that reads a secret from stdin (`<<EOF`, `<<-EOF`, quoted
 *   delimiters, the body up to its delimiter line or the text's end), with real line breaks or
 *   escaped 1–3 times as a JSON string holds them; not into a command that reads none.
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
  secretWord,
  secretWordAfter,
  type Word,
} from "./argv-words.ts";
import { escapeDepth, segment } from "./shapes.ts";

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

/** `sudo` reading its password from stdin, as its name and options before its command, and the command it runs. */
const SUDO_S = [
  "sudo -S",
  "sudo --stdin",
  "sudo --std",
  "sudo -kS",
  "sudo -Sk",
  "sudo -ES",
  "sudo -nSE",
  "sudo -S -p ''",
  'sudo -p "" -S',
  "sudo -u root -S",
  "sudo -uroot -S",
  "sudo -g wheel -kS",
  "sudo --user=deploy --stdin",
  "sudo --user deploy -S",
  "sudo -u app PGHOST=db -S",
  "sudo -h -S",
  "/usr/bin/sudo -S",
];
const SUDO_COMMANDS = ["apt-get update", "-v", "systemctl restart app", "tee /etc/app.env", "-u app id", ""];

/** sudo without `-S`, or with an `S` that is no option of its own: it reads no password from stdin. */
const SUDO_NO_STDIN = [
  "sudo -s",
  "sudo -i",
  "sudo -u postgres psql",
  "sudo pacman -S vim",
  "sudo -uS id",
  "sudo -hS id",
  "sudo -E env",
  "sudo -- -S",
  "sudo tee /etc/motd",
];

/** How a line feeds `input` (a shell word) to a command, before or after the command (`cmd`). */
const FEEDS: Array<(cmd: string, v: string, b: string) => string> = [
  (c, v, b) => `echo${b}${v}${b}|${b}${c}`,
  (c, v) => `echo -n ${v}|${c}`,
  (c, v, b) => `printf${b}'%s\\n'${b}${v} | ${c}`,
  (c, v, b) => `${c}${b}<<<${b}${v}`,
  (c, v, b) => `${c} < <(echo${b}${v})`,
  (c, v, b) => `cat${b}<<<${b}${v} | ${c}`,
];

/** A line where `sudo` (one of `forms`) is fed a word, in one of the contexts. */
const sudoFed = (forms: string[], input: fc.Arbitrary<Word>, at: fc.Arbitrary<number>) =>
  fc
    .tuple(
      fc.constantFrom(...forms),
      fc.constantFrom(...SUDO_COMMANDS),
      input,
      fc.integer({ min: 0, max: FEEDS.length - 1 }),
      blank,
      at,
    )
    .map(([form, command, word, feed, b, where]) => {
      const sudo = form.replace("sudo ", `sudo${b}`);
      return {
        text: CONTEXTS[where]!(FEEDS[feed]!(`${sudo}${command === "" ? "" : ` ${command}`}`, word.text, b)),
        canaries: word.canaries,
        family: `sudo/${sudo}/${feed}`,
      };
    });

describe("argv: sudo -S, fed its password", () => {
  it("is masked whole: echoed, a here-string, a process substitution (generated)", () => {
    masksEach(sudoFed(SUDO_S, secretWord, context), 1200);
  });

  it("stays byte for byte where sudo reads no password from stdin (generated near misses)", () => {
    leavesEach(
      sudoFed(SUDO_NO_STDIN, secretWord, closedContext).map((shape) => shape.text),
      600,
    );
  });

  it.each([
    ["echo hunter2xyz | sudo -S apt update", "echo [redacted:argv] | sudo -S apt update"],
    ["printf '%s\\n' hunter2xyz | sudo -kS cmd", "printf [redacted:argv] | sudo -kS cmd"],
    ["echo hunter2xyz | sudo --stdin cmd", "echo [redacted:argv] | sudo --stdin cmd"],
    ["echo hunter2xyz | sudo -Sk cmd", "echo [redacted:argv] | sudo -Sk cmd"],
    ["sudo -S cmd <<< hunter2xyz", "sudo -S cmd <<< [redacted:argv]"],
    ["sudo -S cmd < <(echo hunter2xyz)", "sudo -S cmd < <(echo [redacted:argv])"],
    // Near misses.
    ["sudo -s", "sudo -s"],
    ["sudo -u postgres psql", "sudo -u postgres psql"],
    ["echo hunter2xyz | sudo pacman -S vim", "echo hunter2xyz | sudo pacman -S vim"],
    ["echo hunter2xyz | sudo -uS id", "echo hunter2xyz | sudo -uS id"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});

/** Flags that name a file holding a secret. */
const SECRET_FILE_FLAGS = [
  "--password-file",
  "--passwordfile",
  "--passfile",
  "--pass-file",
  "--token-file",
  "--secret-file",
  "--vault-password-file",
  "--passphrase-file",
  "--key-file",
  "--api-key-file",
  "--client-secret-file",
  "--authfile",
  "--netrc-file",
  "--credentials-file",
  "--from-file=password=",
  "--from-file=token=",
];
/** Flags that name an ordinary file. */
const OTHER_FILE_FLAGS = [
  "--config-file",
  "--profile",
  "--input-file",
  "--file",
  "--from-file=config=",
  "-f",
];
const FILE_COMMANDS: Array<[string, string]> = [
  ["mysql -u app", "app"],
  ["ansible-playbook site.yml", ""],
  ["gpg --batch -c", "notes.txt"],
  ["cryptsetup open /dev/sdb1 data", ""],
  ["kubectl create secret generic db", "--dry-run=client"],
  ["tool", "--verbose"],
];

/** What a process substitution writes the word `v` with (`b`: a blank). */
const SUBSTITUTIONS: Array<(v: string, b: string) => string> = [
  (v, b) => `<(echo${b}${v})`,
  (v) => `<(echo -n ${v})`,
  (v, b) => `<(printf${b}%s${b}${v})`,
  (v) => `<(printf '%s\\n' ${v})`,
  (v, b) => `<(${b}echo ${v}${b})`,
];

/** A line where a flag of `flags` names a process substitution that echoes a word. */
const fileFed = (flags: string[], input: fc.Arbitrary<Word>, at: fc.Arbitrary<number>) =>
  fc
    .tuple(
      fc.constantFrom(...flags),
      fc.constantFrom(...FILE_COMMANDS),
      input,
      fc.integer({ min: 0, max: SUBSTITUTIONS.length - 1 }),
      blank,
      fc.boolean(),
      at,
    )
    .map(([flag, [cmd, rest], word, how, b, attached, where]) => {
      const joined = flag.endsWith("=") ? "" : attached ? "=" : b;
      const substitution = SUBSTITUTIONS[how]!(word.text, b);
      return {
        text: CONTEXTS[where]!(`${cmd}${b}${flag}${joined}${substitution}${rest === "" ? "" : ` ${rest}`}`),
        canaries: word.canaries,
        family: `file/${flag}`,
      };
    });

describe("argv: a secret file given as a process substitution or /dev/stdin", () => {
  it("is masked whole: what the substitution echoes (generated)", () => {
    masksEach(fileFed(SECRET_FILE_FLAGS, secretWord, context), 1200);
  });

  it("is masked whole: what is fed to /dev/stdin named as a secret file (generated)", () => {
    const shape = fc
      .tuple(
        fc.constantFrom(...SECRET_FILE_FLAGS),
        fc.constantFrom(...FILE_COMMANDS),
        secretWord,
        fc.integer({ min: 0, max: FEEDS.length - 1 }),
        blank,
        fc.boolean(),
        context,
      )
      .map(([flag, [cmd, rest], word, feed, b, attached, at]) => {
        const joined = flag.endsWith("=") ? "" : attached ? "=" : " ";
        const command = `${cmd} ${flag}${joined}/dev/stdin${rest === "" ? "" : ` ${rest}`}`;
        return {
          text: CONTEXTS[at]!(FEEDS[feed]!(command, word.text, b)),
          canaries: word.canaries,
          family: flag,
        };
      });
    masksEach(shape, 800);
  });

  it("stays byte for byte where the flag names an ordinary file, or the substitution echoes nothing (generated)", () => {
    const other = fileFed(OTHER_FILE_FLAGS, secretWord, closedContext).map((shape) => shape.text);
    const read = fc
      .tuple(fc.constantFrom(...SECRET_FILE_FLAGS.filter((f) => !f.endsWith("="))), blank, closedContext)
      .map(([flag, b, at]) => CONTEXTS[at]!(`tool ${flag}${b}<(cat /run/secrets/db) --verbose`));
    const diff = fc
      .tuple(segment, segment, closedContext)
      .map(([x, y, at]) => CONTEXTS[at]!(`diff <(echo ${x}) <(echo ${y}) && echo ${x} | cat /dev/stdin`));
    leavesEach(fc.oneof(other, read, diff), 800);
  });

  it.each([
    ["mysql --password-file <(echo hunter2xyz)", "mysql --password-file <(echo [redacted:argv])"],
    ["x --token-file <(echo hunter2xyz)", "x --token-file <(echo [redacted:argv])"],
    ["x --passwordfile <(echo hunter2xyz)", "x --passwordfile <(echo [redacted:argv])"],
    ["x --secret-file <(echo hunter2xyz)", "x --secret-file <(echo [redacted:argv])"],
    [
      "echo -n hunter2xyz | kubectl create secret generic db --from-file=password=/dev/stdin",
      "echo -n [redacted:argv] | kubectl create secret generic db --from-file=password=[redacted:key-value]",
    ],
    // Near misses.
    ["diff <(echo hunter2xyz) <(echo b)", "diff <(echo hunter2xyz) <(echo b)"],
    ["x --config-file <(echo hunter2xyz)", "x --config-file <(echo hunter2xyz)"],
    ["echo hunter2xyz | cat /dev/stdin", "echo hunter2xyz | cat /dev/stdin"],
    // A secret file's path is the key-value rule's (a flag named for a password): masked whole by it,
    // nothing of argv's; what a substitution reads from elsewhere is no secret of the line.
    ["mysql --password-file /run/secrets/db", "mysql --password-file [redacted:key-value]"],
    ["mysql --password-file <(cat /run/secrets/db)", "mysql --password-file <(cat /run/secrets/db)"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});

/**
 * Commands that read a secret from stdin, as words before and after where a redirection may go
 * (`value`: what the command reads around the secret, chpasswd's `user:password`).
 */
const READERS: Array<{ before: string; after: string; value?: (v: string) => string }> = [
  { before: "docker login -u ci", after: "--password-stdin registry.example" },
  { before: "podman login --username ci --password-stdin", after: "quay.io" },
  { before: "gh auth login", after: "--with-token" },
  { before: "glab auth login --stdin", after: "" },
  { before: "vault login", after: "-" },
  { before: "cargo login", after: "" },
  { before: "passwd --stdin", after: "bob" },
  { before: "chpasswd", after: "", value: (v) => `bob:${v}` },
  { before: "gh secret set", after: "API_TOKEN" },
  { before: "docker secret create db_pass", after: "-" },
  { before: "gpg --batch --passphrase-fd 0", after: "-c notes.txt" },
  { before: "mysql --password-file=/dev/stdin", after: "-u app" },
  ...SUDO_S.map((before) => ({ before, after: "apt-get install -y jq" })),
];

/**
 * Readers whose flags key-value leaves alone when their input is a file (it masks the value of
 * `--passphrase-fd`, of `--password-file` and the `<` after `--with-token` or a key being set).
 */
const FROM_FILE = READERS.filter(
  ({ before, after }) => !/passphrase-fd|password-file|--with-token|secret set/.test(`${before} ${after}`),
);

/** Commands that read no secret from stdin: a here-document's body is their input, not a secret. */
const NON_READERS = [
  { before: "cat", after: "> notes.txt" },
  { before: "tee", after: "/etc/motd" },
  { before: "psql -U app", after: "app" },
  { before: "bash", after: "-s" },
  { before: "docker login -u ci", after: "registry.example" },
  { before: "python3", after: "-" },
  ...SUDO_NO_STDIN.map((before) => ({ before, after: "" })),
];

/** A here-document's delimiter word: common ones and random ones. */
const delimiterName = fc.oneof(
  fc.constantFrom("EOF", "END", "EOT", "TOKEN", "PASS", "_EOF_", "SECRET_END", "X"),
  fc.stringMatching(/^[A-Z][A-Z0-9_]{0,8}$/),
);

/**
 * A delimiter no other rule reads as a secret's key: key-value reads `<<PASS > notes.txt` as an XML
 * element named for a password, and masks it (see the report).
 */
const plainDelimiter = delimiterName.filter((d) => !/PASS|TOKEN|SECRET|KEY|AUTH|PWD|PSK|SIG|CRED/.test(d));

/** How the operator and its delimiter word are written (`d`: the delimiter, `b`: a blank). */
const OPERATORS: Array<(d: string, b: string) => string> = [
  (d) => `<<${d}`,
  (d, b) => `<<${b}${d}`,
  (d) => `<<'${d}'`,
  (d, b) => `<<${b}"${d}"`,
  (d) => `<<\\${d}`,
  (d) => `<<-${d}`,
  (d, b) => `<<-${b}'${d}'`,
];

/** Where the line that holds the command starts, and what follows the here-document. */
const BEFORE = ["", "+ ", "cd /srv/app && ", "set -e; ", "INFO exec: "];
const AFTER = ["", "\necho ok", "\ndocker push registry.example/app:1\nexit 0"];

/** The text escaped `depth` times as a JSON string holds it, maybe inside a JSON message or a logfmt value. */
const WRAPS: Array<(t: string) => string> = [
  (t) => t,
  (t) => `{"msg":"${t}","level":"info"}`,
  (t) => `msg="${t}"`,
];

/**
 * A script whose command (one of `commands`) reads a here-document: the redirection among its words or
 * on `cat` piped into it, the body the secret's lines (a second line sometimes), `<<-`'s tabs before
 * them, the delimiter line there or not (the text ends in the body), escaped 0–3 times.
 */
const hereDocument = (commands: typeof READERS, input: fc.Arbitrary<Word>, delimiters = delimiterName) =>
  fc
    .tuple(
      fc.integer({ min: 0, max: commands.length - 1 }),
      fc.tuple(input, fc.option(input)),
      delimiters,
      fc.nat(),
      blank,
      fc.integer({ min: 0, max: 3 }),
      fc.boolean(),
      fc.integer({ min: 0, max: 2 }),
    )
    .map(([which, [word, second], d, pick, b, depth, unicode, tabs]) => {
      const { before, after, value } = commands[which]!;
      const line = (w: Word) => (value === undefined ? w.text : value(w.text));
      const operator = OPERATORS[pick % OPERATORS.length]!(d, b);
      const stripped = operator.startsWith("<<-");
      const indent = stripped ? "\t".repeat(tabs) : "";
      const piped = (pick >> 3) % 3 === 0;
      const cmd = piped
        ? `cat ${operator} | ${before}${after === "" ? "" : ` ${after}`}`
        : (pick >> 5) % 2 === 0 || after === ""
          ? `${before} ${operator}${after === "" ? "" : ` ${after}`}`
          : `${before} ${after} ${operator}`;
      const body = [word, ...(second === null ? [] : [second])].map((w) => `${indent}${line(w)}`);
      const ended = (pick >> 6) % 6 !== 0;
      const tail = ended ? `\n${indent}${d}${AFTER[(pick >> 9) % AFTER.length]}` : "";
      const script = `${BEFORE[(pick >> 11) % BEFORE.length]}${cmd}\n${body.join("\n")}${tail}`;
      const text =
        depth === 0 ? script : WRAPS[(pick >> 14) % WRAPS.length]!(escapeDepth(script, depth, unicode));
      return {
        text,
        canaries: [...word.canaries, ...(second?.canaries ?? [])],
        family: `heredoc/${before}/depth ${depth}`,
      };
    });

describe("argv: a here-document into a command that reads a secret from stdin", () => {
  it("is masked whole up to its delimiter line, escaped 0–3 times (generated)", () => {
    masksEach(hereDocument(READERS, secretWord), 1500);
  });

  it("stays byte for byte into a command that reads none (generated near misses)", () => {
    const lines = hereDocument(
      NON_READERS,
      segment.map((s) => ({ text: s, canaries: [] })),
      plainDelimiter,
    ).map((shape) => shape.text);
    leavesEach(lines, 800);
  });

  it("stays byte for byte beside a reader fed from a file, on the line before or after (generated)", () => {
    // After it, escaped too: the here-document's command ends at its line, escaped or not. (Before
    // it, only with real line breaks: an escaped one ends no command, see the report.)
    const line = fc
      .tuple(
        fc.integer({ min: 0, max: FROM_FILE.length - 1 }),
        segment,
        plainDelimiter,
        blank,
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 2 }),
      )
      .map(([which, other, d, b, depth, where]) => {
        const reader = `${FROM_FILE[which]!.before} ${FROM_FILE[which]!.after}`;
        const doc = `cat <<${d} > notes.txt\n${other}\n${d}`;
        if (where === 0) return `${reader}${b}< /run/ci/token\n${doc}\necho ok`;
        const after = where === 1 ? `cat /run/ci/token |${b}${reader}` : `${reader}${b}< /run/ci/token`;
        return escapeDepth(`${doc}\n${after}`, depth, false);
      });
    leavesEach(line, 400);
  });

  it.each([
    [
      "docker login -u me --password-stdin <<EOF\nhunter2xyz\nEOF",
      "docker login -u me --password-stdin <<EOF\n[redacted:argv]\nEOF",
    ],
    [
      "docker login -u me --password-stdin <<-EOF\n\thunter2xyz\n\tEOF\necho ok",
      "docker login -u me --password-stdin <<-EOF\n[redacted:argv]\n\tEOF\necho ok",
    ],
    [
      "docker login -u me --password-stdin <<'EOF'\nhunter2xyz\nEOF",
      "docker login -u me --password-stdin <<'EOF'\n[redacted:argv]\nEOF",
    ],
    [
      '{"msg":"docker login -u me --password-stdin <<\\"EOF\\"\\nhunter2xyz\\nEOF","x":1}',
      '{"msg":"docker login -u me --password-stdin <<\\"EOF\\"\\n[redacted:argv]\\nEOF","x":1}',
    ],
    [
      "docker login -u me --password-stdin <<EOF\\\\nhunter2xyz\\\\nEOF",
      "docker login -u me --password-stdin <<EOF\\\\n[redacted:argv]\\\\nEOF",
    ],
    [
      "cat <<EOF | docker login --password-stdin\nhunter2xyz\nEOF",
      "cat <<EOF | docker login --password-stdin\n[redacted:argv]\nEOF",
    ],
    [
      "chpasswd << END\nbob:hunter2xyz\nalice:Zq8xKv7mWpL3\nEND\necho done",
      "chpasswd << END\n[redacted:argv]\nEND\necho done",
    ],
    // The delimiter never comes: the body runs to the text's end.
    ["gh auth login --with-token <<EOF\nhunter2xyz", "gh auth login --with-token <<EOF\n[redacted:argv]"],
    // Two here-documents on one line: the second's body follows the first's.
    [
      "docker login --password-stdin <<A <<B\nfoo\nA\nhunter2xyz\nB",
      "docker login --password-stdin <<A <<B\n[redacted:argv]\nA\n[redacted:argv]\nB",
    ],
    // Near misses.
    ["cat <<EOF > notes.txt\nhunter2xyz\nEOF", "cat <<EOF > notes.txt\nhunter2xyz\nEOF"],
    ["sudo -s <<EOF\nwhoami\nEOF", "sudo -s <<EOF\nwhoami\nEOF"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});
