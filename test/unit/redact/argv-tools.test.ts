/**
 * The argv rule's tools whose credential follows a flag or sits among their arguments, generated over
 * the grammar: the secret in every quoting, random blanks, the options in any order among each other
 * and the positional arguments, the command anywhere on a line or in a JSON string escaped 1–3 times:
 * - ssh-keygen's passphrases, `-N new` and `-P old`, spaced or attached; not `-N ''` (none), nor a
 *   key made without `-N`.
 * - `cqlsh -p`, NcFTP's `-p` (spaced or attached), InfluxDB's `-t`/`--token` (and `influx setup -p`,
 *   v1's `-password`), lftp's `-u user,password` (the password after the comma); not NcFTP's `-P`
 *   (a port), `influx -o org`, lftp's user without a password.
 * - positional passwords: `mysqladmin password NEW`, Bitwarden's `bw unlock PASSWORD` and `bw login
 *   EMAIL PASSWORD`, MinIO's `mc alias set ALIAS URL ACCESS SECRET` (and `mc config host add`), the
 *   value of rclone's secret keys in `config create|update|password` (`pass v`, `secret_access_key=v`);
 *   not `mysqladmin status`, `bw unlock --check`, `mc alias set` without keys, rclone's other keys.
 *   (bw and `mc config host add` have no trigger word of their own: such a line is read when another
 *   is on it, as `--raw` or `--api`.)
 * - Pulumi's `config set NAME VALUE` where `--secret` (or `--secret=true`) declares the value secret,
 *   the flag anywhere among its words, whatever the name, and `pulumi env set ENV PATH VALUE --secret` (`config set-all --secret NAME=VALUE` is the
 *   key-value rule's); not `config set` without `--secret`.
 * - secret files fed from the line: what a process substitution echoes into OpenVPN's
 *   `--auth-user-pass` or `--askpass`, sshpass's `-f`, OpenSSL's `-passin file:`/`-passout file:`/
 *   `-kfile`, and what is piped or redirected into OpenSSL's `-passin fd:0`, `-passin stdin`,
 *   `-passin file:/dev/stdin`; not `-f` of other commands (`grep -f <(…)`), `-passin file:NAME`,
 *   `env:`, `fd:3`, nor OpenSSL fed data without one.
 * Near misses (the same tools without a credential) stay byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactText } from "../../../lib/redact/index.ts";
import {
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

/** Stands for the secret's word in a tool's arguments. */
const V = "\u0000";

/**
 * A tool's command line: its name's words, its options (each a group of words kept together: `-f
 * key`), placed in any order among each other and among its positional arguments, which keep theirs.
 * A word may hold `V`, the secret.
 */
interface Tool {
  name: string;
  options: string[][];
  positionals?: string[];
}

/**
 * The words of `tool` in an order `picks` choose: each option goes before a positional (or after the
 * last) picked for it, options there in the order picked.
 */
function arrange(tool: Tool, picks: number[]): string[] {
  const positionals = tool.positionals ?? [];
  const placed = tool.options.map((words, k) => {
    const pick = picks[k % picks.length]!;
    return { words, slot: pick % (positionals.length + 1), order: pick >> 4 };
  });
  placed.sort((a, b) => a.slot - b.slot || a.order - b.order);
  const out: string[] = [];
  let next = 0;
  for (let p = 0; p <= positionals.length; p++) {
    while (next < placed.length && placed[next]!.slot === p) out.push(...placed[next++]!.words);
    if (p < positionals.length) out.push(positionals[p]!);
  }
  return out;
}

/** Where a command line goes: one of `CONTEXTS` (`at`), or a JSON string escaped `depth` (1–3) times. */
const placement = (at: fc.Arbitrary<number>) =>
  fc.oneof(
    at.map((k) => (cmd: string) => CONTEXTS[k]!(cmd)),
    fc.tuple(fc.integer({ min: 1, max: 3 }), fc.boolean()).map(
      ([depth, unicode]) =>
        (cmd: string) =>
          `{"level":"info","cmd":"${escapeDepth(cmd.replaceAll("\t", " "), depth, unicode)}"}`,
    ),
  );

/**
 * Lines of `tools` with `input`'s word for `V`, their words in any order, joined by random blanks, in
 * the contexts `at` picks.
 */
const toolLines = (tools: Tool[], input: fc.Arbitrary<Word>, at = context) =>
  fc
    .tuple(
      fc.integer({ min: 0, max: tools.length - 1 }),
      input,
      fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
      fc.array(blank, { minLength: 3, maxLength: 3 }),
      placement(at),
    )
    .map(([which, word, picks, blanks, place]) => {
      const tool = tools[which]!;
      const words = [tool.name, ...arrange(tool, picks)].map((w) => w.replaceAll(V, () => word.text));
      const cmd = words.map((w, k) => (k === 0 ? w : `${blanks[k % blanks.length]}${w}`)).join("");
      return { text: place(cmd), canaries: word.canaries, family: `tool/${tool.name.replaceAll(V, "v")}` };
    });

/**
 * Lines of `tools` as `toolLines` has them, with no secret in them; no word after them (`… done`),
 * which a command's optional last argument would take (`bw unlock --check done`).
 */
const plainLines = (tools: Tool[]) =>
  toolLines(tools, fc.constant({ text: "", canaries: [] }), closedContext).map((l) => l.text);

const SSH_KEYGEN: Tool[] = [
  {
    name: "ssh-keygen",
    options: [
      ["-t", "ed25519"],
      ["-N", V],
      ["-f", "key"],
      ["-C", "ci@example.com"],
    ],
  },
  {
    name: "ssh-keygen",
    options: [["-q"], ["-t", "rsa"], ["-b", "4096"], [`-N${V}`], ["-f", "~/.ssh/id_rsa"]],
  },
  { name: "ssh-keygen", options: [["-p"], ["-P", V], ["-N", "''"], ["-f", "key"]] },
  { name: "ssh-keygen", options: [["-p"], [`-P${V}`], ["-f", "/etc/ssh/key"]] },
  { name: "/usr/bin/ssh-keygen", options: [["-y"], ["-P", V], ["-f", "key"]] },
  {
    name: "ssh-keygen",
    options: [
      ["-Y", "sign"],
      ["-n", "file"],
      ["-P", V],
      ["-f", "key"],
    ],
  },
];
/** ssh-keygen with both passphrases: the old one the secret, the new one a second secret. */
const SSH_KEYGEN_CHANGE: Tool = {
  name: "ssh-keygen",
  options: [["-p"], ["-P", V], ["-N", `${V}x`], ["-f", "k"]],
};
const SSH_KEYGEN_PLAIN: Tool[] = [
  {
    name: "ssh-keygen",
    options: [
      ["-t", "ed25519"],
      ["-C", "me"],
      ["-f", "key"],
    ],
  },
  {
    name: "ssh-keygen",
    options: [
      ["-t", "ed25519"],
      ["-N", "''"],
      ["-f", "key"],
    ],
  },
  { name: "ssh-keygen", options: [["-q"], ["-N", '""'], ["-C", "ci@example.com"], ["-f", "id"]] },
  { name: "ssh-keygen", options: [["-lf", "key.pub"]] },
  { name: "ssh-keygen", options: [["-R", "host.example"]] },
  { name: "ssh-keygen", options: [["-F", "host.example"], ["-H"]] },
];

describe("argv: ssh-keygen's passphrases", () => {
  it("are masked: `-N new`, `-P old`, spaced or attached, options in any order (generated)", () => {
    masksEach(toolLines([...SSH_KEYGEN, SSH_KEYGEN_CHANGE], secretWord), 1500);
  });

  it("stay byte for byte without one: no `-N`, or `-N ''` (generated near misses)", () => {
    leavesEach(plainLines(SSH_KEYGEN_PLAIN), 600);
  });

  it.each([
    ["ssh-keygen -N 'hunter2xyzQ9' -f key", "ssh-keygen -N '[redacted:argv]' -f key"],
    [
      "ssh-keygen -p -P old2xyzQ9 -N hunter2xyzQ9 -f key",
      "ssh-keygen -p -P [redacted:argv] -N [redacted:argv] -f key",
    ],
    ["ssh-keygen -t ed25519 -Nhunter2xyzQ9 -f key", "ssh-keygen -t ed25519 -N[redacted:argv] -f key"],
    // Near misses.
    ["ssh-keygen -t ed25519 -C me -f key", "ssh-keygen -t ed25519 -C me -f key"],
    ["ssh-keygen -t ed25519 -N '' -f key", "ssh-keygen -t ed25519 -N '' -f key"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});

const LOGINS: Tool[] = [
  { name: "cqlsh", options: [["-u", "bob"], ["-p", V], ["--ssl"]], positionals: ["db.example", "9042"] },
  { name: "cqlsh", options: [["-u", "cassandra"], [`-p${V}`], ["-e", "'DESCRIBE KEYSPACES'"]] },
  {
    name: "ncftp",
    options: [
      ["-u", "bob"],
      ["-p", V],
      ["-P", "2121"],
    ],
    positionals: ["ftp.example"],
  },
  {
    name: "ncftpput",
    options: [
      ["-u", "bob"],
      ["-p", V],
    ],
    positionals: ["ftp.example", "/up", "a.tgz"],
  },
  { name: "ncftpget", options: [["-u", "bob"], [`-p${V}`]], positionals: ["ftp.example", ".", "/a.tgz"] },
  {
    name: "influx query",
    options: [
      ["-o", "org"],
      ["-t", V],
      ["--host", "http://db:8086"],
    ],
  },
  {
    name: "influx bucket list",
    options: [
      ["--org", "org"],
      ["--token", V],
    ],
  },
  { name: "influx bucket list", options: [["--org", "org"], [`--token=${V}`]] },
  { name: "influx write", options: [["-b", "metrics"], [`-t=${V}`], ["-f", "data.lp"]] },
  { name: "influx setup", options: [["-u", "admin"], ["-p", V], ["-o", "org"], ["-b", "b"], ["-f"]] },
  {
    name: "influx",
    options: [
      ["-username", "admin"],
      ["-password", V],
      ["-host", "db"],
    ],
  },
  {
    name: "lftp",
    options: [
      ["-u", `bob,${V}`],
      ["-e", "'mirror -R out /in; quit'"],
    ],
    positionals: ["ftp.example"],
  },
  {
    name: "lftp",
    options: [
      ["-p", "2121"],
      ["--user", `ci-bot,${V}`],
    ],
    positionals: ["sftp://ftp.example"],
  },
];
/** lftp's commands, quoted: a bare password inside them. */
const LFTP_COMMANDS: Tool[] = [
  {
    name: "lftp",
    options: [["-d"], ["-e", `'set ssl:verify-certificate no; open -u bob,${V} ftp.example'`]],
  },
  { name: "lftp", options: [["-c", `"open -u ci,${V} sftp://ftp.example; mirror -R out /in"`]] },
];
/** A secret no quoting holds: one to three segments joined by `.`, `-` or `_`. */
const bareSecret: fc.Arbitrary<Word> = fc
  .array(fc.tuple(segment, fc.constantFrom(".", "-", "_")), { minLength: 1, maxLength: 3 })
  .map((parts) => ({
    text: parts.map(([seg, join], k) => (k === 0 ? seg : join + seg)).join(""),
    canaries: parts.map(([seg]) => seg),
  }));
/** lftp's user and password as one quoted word (`-u 'bob,v'`). */
const LFTP_QUOTED: Tool = {
  name: "lftp",
  options: [
    ["-u", V],
    ["-p", "21"],
  ],
  positionals: ["ftp.example"],
};
const LOGINS_PLAIN: Tool[] = [
  // (A user last on a line in a JSON string, `-u bob","step":3}`, reads as curl's `user:password`.)
  { name: "cqlsh", options: [["--username", "bob"], ["--ssl"], ["-k", "app"]], positionals: ["db.example"] },
  { name: "ncftp -u bob", options: [["-P", "2121"]], positionals: ["ftp.example"] },
  { name: "ncftpput", options: [["-P", "21"], ["-R"]], positionals: ["ftp.example", "/up", "dir"] },
  { name: "influx query", options: [["-o", "org"], ["--host", "http://db:8086"], ["-r"]] },
  {
    name: "influx bucket create",
    options: [
      ["-n", "metrics"],
      ["-o", "org"],
      ["-r", "30d"],
    ],
  },
  { name: "lftp -u bob", options: [["-p", "2121"]], positionals: ["ftp.example"] },
  { name: "lftp -u bob,", options: [["-e", "'ls; quit'"]], positionals: ["ftp.example"] },
];

describe("argv: cqlsh's, NcFTP's, InfluxDB's and lftp's credentials", () => {
  it("are masked: `-p v`, `-t v`, `--token=v`, `-u user,v`, options in any order (generated)", () => {
    masksEach(toolLines(LOGINS, secretWord), 1500);
    masksEach(toolLines([LFTP_QUOTED], secretWordAfter(["bob,", "ci-bot,"])), 400);
    masksEach(toolLines(LFTP_COMMANDS, bareSecret), 300);
  });

  it("stay byte for byte without one: NcFTP's `-P`, `influx -o`, lftp's user alone (generated near misses)", () => {
    leavesEach(plainLines(LOGINS_PLAIN), 600);
  });

  it.each([
    ["cqlsh -u bob -p hunter2xyzQ9", "cqlsh -u bob -p [redacted:argv]"],
    ["ncftp -u bob -p hunter2xyzQ9 host", "ncftp -u bob -p [redacted:argv] host"],
    [
      "influx query -t hunter2xyzQ9 'from(bucket:\"b\")'",
      "influx query -t [redacted:argv] 'from(bucket:\"b\")'",
    ],
    ["lftp -u bob,hunter2xyzQ9 host", "lftp -u bob,[redacted:argv] host"],
    ["lftp -u 'bob,hunter2xyzQ9' host", "lftp -u 'bob,[redacted:argv]' host"],
    [
      "lftp -e 'open -u bob,hunter2xyzQ9 host; mirror -R out'",
      "lftp -e 'open -u bob,[redacted:argv] host; mirror -R out'",
    ],
    ["lftp -c 'open -u bob,hunter2xyzQ9'", "lftp -c 'open -u bob,[redacted:argv]'"],
    // Near misses.
    ["influx query -o org", "influx query -o org"],
    ["ncftp -u bob -P 2121 host", "ncftp -u bob -P 2121 host"],
    ["lftp -u bob host", "lftp -u bob host"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});

const POSITIONALS: Tool[] = [
  {
    name: "mysqladmin",
    options: [
      ["-u", "root"],
      ["-h", "db.internal"],
    ],
    positionals: ["password", V],
  },
  { name: "mysqladmin", options: [["-uroot"], ["-pOld2xyzQ9"]], positionals: ["password", V] },
  {
    name: "mysqladmin",
    options: [
      ["-u", "root"],
      ["-P", "3306"],
      ["-S", "/run/mysqld.sock"],
    ],
    positionals: ["password", V],
  },
  { name: "mysqladmin", options: [["--user=root"], ["--port", "3306"]], positionals: ["old-password", V] },
  { name: "bw unlock", options: [["--raw"]], positionals: [V] },
  { name: "bw unlock", options: [["--raw"], ["--nointeraction"]], positionals: [V] },
  {
    name: "bw login",
    options: [["--raw"], ["--method", "0"], ["--code", "123456"]],
    positionals: ["bob@example.com", V],
  },
  {
    name: "mc alias set",
    options: [["--api", "S3v4"]],
    positionals: ["minio", "http://minio:9000", "minioadmin", V],
  },
  {
    name: "mc alias set",
    options: [["--path", "auto"], ["--insecure"]],
    positionals: ["s3", "https://s3.example", "AK1", V],
  },
  {
    name: "mc config host add",
    options: [["--api", "s3v4"]],
    positionals: ["old", "https://s3.example", "AK1", V],
  },
  {
    name: "rclone config create",
    options: [["--non-interactive"], ["--obscure"]],
    positionals: ["backup", "s3", "provider", "AWS", "secret_access_key", V, "region", "us-east-1"],
  },
  {
    name: "rclone config create",
    options: [["--obscure"]],
    positionals: ["box", "sftp", "host", "h.example", "user", "bob", "pass", V],
  },
  {
    name: "rclone config create",
    options: [["--config", "/etc/rclone.conf"]],
    positionals: ["gd", "drive", `client_secret=${V}`, "scope=drive"],
  },
  { name: "rclone config update", options: [["--obscure"]], positionals: ["box", "password", V] },
  { name: "rclone config update", options: [], positionals: ["b2", "account", "0012ab", "key", V] },
  { name: "rclone config password", options: [], positionals: ["box", `pass=${V}`] },
];
const POSITIONALS_PLAIN: Tool[] = [
  { name: "mysqladmin -u root", options: [["-h", "db.internal"]], positionals: ["status"] },
  {
    name: "mysqladmin -u root",
    options: [
      ["-P", "3306"],
      ["-i", "5"],
    ],
    positionals: ["processlist"],
  },
  { name: "mysqladmin", options: [["-uroot"], ["--port", "3306"]], positionals: ["create", "app"] },
  { name: "bw unlock", options: [["--check"], ["--raw"]] },
  // (`--apikey","step":3}` at a JSON string's end reads as a key and its value.)
  { name: "bw login --apikey", options: [["--raw"]] },
  { name: "bw list items", options: [["--search", "github"], ["--raw"]] },
  { name: "mc alias set", options: [["--api", "S3v4"]], positionals: ["minio", "http://minio:9000"] },
  { name: "mc alias", options: [], positionals: ["list"] },
  { name: "mc alias remove", options: [], positionals: ["minio"] },
  { name: "mc", options: [["--insecure"]], positionals: ["ls", "minio/bucket"] },
  { name: "rclone config", options: [], positionals: ["show"] },
  {
    name: "rclone config create",
    options: [["--non-interactive"]],
    positionals: ["backup", "s3", "provider", "AWS", "env_auth", "true", "region", "us-east-1"],
  },
  { name: "rclone config update", options: [], positionals: ["backup", "region=eu-west-1", "acl=private"] },
  { name: "rclone copy", options: [["--progress"]], positionals: ["src", "backup:bucket"] },
];

describe("argv: positional passwords of mysqladmin, bw, mc and rclone", () => {
  it("are masked: the argument the command takes its secret as, options anywhere (generated)", () => {
    masksEach(toolLines(POSITIONALS, secretWord), 2000);
  });

  it("stay byte for byte without one (generated near misses)", () => {
    leavesEach(plainLines(POSITIONALS_PLAIN), 800);
  });

  it.each([
    ["mysqladmin -u root password hunter2xyzQ9", "mysqladmin -u root password [redacted:argv]"],
    ["bw unlock hunter2xyzQ9 --raw", "bw unlock [redacted:argv] --raw"],
    ["bw login bob@example.com hunter2xyzQ9 --raw", "bw login bob@example.com [redacted:argv] --raw"],
    [
      "mc alias set s3 https://s3.example AKIAEXAMPLE1 hunter2xyzQ9",
      "mc alias set s3 https://s3.example AKIAEXAMPLE1 [redacted:argv]",
    ],
    // (`mc config host add` has no trigger word of its own: its `--api` is read.)
    [
      "mc config host add s3 https://s3.example AKIAEXAMPLE1 hunter2xyzQ9 --api s3v4",
      "mc config host add s3 https://s3.example AKIAEXAMPLE1 [redacted:argv] --api s3v4",
    ],
    [
      "rclone config create r s3 secret_access_key hunter2xyzQ9 region x",
      "rclone config create r s3 secret_access_key [redacted:argv] region x",
    ],
    ["rclone config update r pass hunter2xyzQ9", "rclone config update r pass [redacted:argv]"],
    // Near misses.
    ["mc alias list", "mc alias list"],
    ["rclone config show", "rclone config show"],
    ["mysqladmin -u root status", "mysqladmin -u root status"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});

/** Names Pulumi's configuration is set under: a secret's is any name (`--secret` says what it is). */
const PULUMI_NAMES = ["region", "app:replicas", "aws:profile", "tls.cert", "app:dbPassword", "apiKey"];

const PULUMI: Tool[] = PULUMI_NAMES.flatMap((name) => [
  { name: "pulumi config set", options: [["--secret"], ["-s", "dev"]], positionals: [name, V] },
  {
    name: "pulumi config set",
    options: [["--secret=true"], ["--stack", "org/app/prod"]],
    positionals: [name, V],
  },
  { name: "pulumi config set", options: [["--path"], ["--secret"], ["-C", "infra"]], positionals: [name, V] },
]);
PULUMI.push(
  // After `--` every word is an argument: the options before it.
  { name: "pulumi config set --secret -s dev app:dbPassword --", options: [], positionals: [V] },
  { name: "pulumi env set", options: [["--secret"]], positionals: ["org/prod", "db.password", V] },
  {
    name: "pulumi env set",
    options: [["--secret=true"], ["-C", "infra"]],
    positionals: ["prod", "tokens.api", V],
  },
);
const PULUMI_ALL: Tool[] = [
  {
    name: "pulumi config set-all",
    options: [
      ["--secret", `app:token=${V}`],
      ["--plaintext", "region=us"],
    ],
  },
  { name: "pulumi config set-all", options: [[`--secret=db.password=${V}`], ["-s", "dev"], ["--path"]] },
];
const PULUMI_PLAIN: Tool[] = [
  { name: "pulumi config set", options: [], positionals: ["region", "us-east-1"] },
  {
    name: "pulumi config set",
    options: [["--plaintext"], ["-s", "dev"]],
    positionals: ["app:replicas", "3"],
  },
  {
    name: "pulumi config set",
    options: [["--path"], ["--cwd", "infra"]],
    positionals: ["tags.team", "platform"],
  },
  {
    name: "pulumi config set-all",
    options: [
      ["--plaintext", "region=us"],
      ["--plaintext", "size=t3.small"],
    ],
  },
  { name: "pulumi config get", options: [["-s", "dev"]], positionals: ["region"] },
  {
    name: "pulumi env set",
    options: [["--plaintext"]],
    positionals: ["org/prod", "app.region", "us-east-1"],
  },
  { name: "pulumi up", options: [["--yes"], ["--stack", "dev"], ["--skip-preview"]] },
];

describe("argv: Pulumi's secret configuration values", () => {
  it("are masked: `config set NAME VALUE` with `--secret` anywhere (generated)", () => {
    masksEach(toolLines(PULUMI, secretWord), 1500);
  });

  it("are masked: `set-all --secret NAME=VALUE` (the key-value rule's: `--secret`'s value) (generated)", () => {
    masksEach(toolLines(PULUMI_ALL, bareSecret), 300);
  });

  it("stay byte for byte without `--secret` (generated near misses)", () => {
    leavesEach(plainLines(PULUMI_PLAIN), 600);
  });

  it.each([
    // (The key-value rule reads `--secret region` as a key and its value.)
    [
      "pulumi config set --secret region hunter2xyzQ9",
      "pulumi config set --secret [redacted:key-value] [redacted:argv]",
    ],
    ["pulumi config set region hunter2xyzQ9 --secret", "pulumi config set region [redacted:argv] --secret"],
    ["pulumi config set region --secret hunter2xyzQ9", "pulumi config set region --secret [redacted:argv]"],
    [
      "pulumi config set -s dev region hunter2xyzQ9 --secret=true",
      "pulumi config set -s dev region [redacted:argv] --secret=[redacted:key-value]",
    ],
    // Near misses.
    ["pulumi config set region us-east-1", "pulumi config set region us-east-1"],
    ["pulumi config set --plaintext region us-east-1", "pulumi config set --plaintext region us-east-1"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});

const FED: Tool[] = [
  {
    name: "openvpn",
    options: [
      ["--config", "client.ovpn"],
      ["--auth-user-pass", `<(printf '%s\\n' bob ${V})`],
    ],
  },
  {
    name: "openvpn",
    options: [
      ["--config", "c.ovpn"],
      ["--auth-user-pass", `<(echo -e "bob\\n"${V})`],
      ["--verb", "3"],
    ],
  },
  {
    name: "openvpn",
    options: [
      ["--config", "c.ovpn"],
      ["--askpass", `<(echo ${V})`],
    ],
  },
  // sshpass's options come before its command; `s -` (one space) is the trigger word its `-f` has.
  { name: `sshpass -f <(echo ${V})`, options: [], positionals: ["ssh", "bob@host.example", "uptime"] },
  { name: `sshpass -v -f <(printf %s ${V})`, options: [], positionals: ["scp", "a.tgz", "host:/tmp"] },
  { name: `sshpass -f<(echo ${V})`, options: [], positionals: ["ssh", "host"] },
  {
    name: "openssl rsa",
    options: [
      ["-in", "key.pem"],
      ["-passin", `file:<(echo ${V})`],
      ["-out", "plain.pem"],
    ],
  },
  {
    name: "openssl pkcs12 -export",
    options: [
      ["-in", "c.pem"],
      ["-passout", `file:<(printf %s ${V})`],
    ],
  },
  {
    name: "openssl enc -d -aes-256-cbc",
    options: [
      ["-kfile", `<(echo -n ${V})`],
      ["-in", "a.enc"],
    ],
  },
  {
    name: `echo ${V} | openssl rsa`,
    options: [
      ["-in", "key.pem"],
      ["-passin", "fd:0"],
      ["-out", "p.pem"],
    ],
  },
  { name: `printf %s ${V} | openssl pkcs12`, options: [["-in", "c.p12"], ["-passin", "stdin"], ["-nodes"]] },
  {
    name: `echo -n ${V} | openssl rsa`,
    options: [
      ["-in", "k.pem"],
      ["-passin", "file:/dev/stdin"],
    ],
  },
  {
    name: "openssl rsa",
    options: [
      ["-in", "key.pem"],
      ["-passin", "stdin"],
    ],
    positionals: [`<<< ${V}`],
  },
];
const FED_PLAIN: Tool[] = [
  { name: "grep", options: [["-f", "<(echo ERROR)"], ["-c"]], positionals: ["app.log"] },
  {
    name: "kubectl apply",
    options: [
      ["-f", "<(echo 'kind: Namespace')"],
      ["-n", "prod"],
    ],
  },
  {
    name: "openvpn",
    options: [
      ["--config", "<(echo client)"],
      ["--verb", "3"],
    ],
  },
  {
    name: "openssl rsa",
    options: [
      ["-in", "key.pem"],
      ["-passin", "file:key.pass"],
      ["-out", "p.pem"],
    ],
  },
  {
    name: "openssl rsa",
    options: [
      ["-in", "key.pem"],
      ["-passin", "env:KEY_PASS"],
    ],
  },
  { name: "echo data | openssl enc", options: [["-base64"], ["-A"]] },
  {
    name: "echo data | openssl rsa",
    options: [
      ["-in", "k.pem"],
      ["-passin", "file:pw.txt"],
    ],
  },
  {
    name: "echo data | openssl rsa",
    options: [
      ["-in", "k.pem"],
      ["-passin", "fd:3"],
    ],
  },
  { name: "diff", options: [], positionals: ["<(echo a)", "<(echo b)"] },
];

describe("argv: secret files and descriptors fed from the line", () => {
  it("are masked: OpenVPN's, sshpass's and OpenSSL's, options in any order (generated)", () => {
    masksEach(toolLines(FED, secretWord), 2000);
  });

  it("stay byte for byte where the file or the input holds no secret (generated near misses)", () => {
    leavesEach(plainLines(FED_PLAIN), 800);
  });

  it.each([
    [
      'openvpn --auth-user-pass <(echo -e "bob\\nhunter2xyzQ9")',
      'openvpn --auth-user-pass <(echo -e "[redacted:argv]")',
    ],
    ["sshpass -f <(echo hunter2xyzQ9) ssh host", "sshpass -f <(echo [redacted:argv]) ssh host"],
    [
      "openssl rsa -in k -passin file:<(echo hunter2xyzQ9)",
      "openssl rsa -in k -passin file:<(echo [redacted:argv])",
    ],
    [
      "echo hunter2xyzQ9 | openssl rsa -in k -passin fd:0",
      "echo [redacted:argv] | openssl rsa -in k -passin fd:0",
    ],
    // A pipe inside a quote escaped as a JSON string's `\u0022` is the word's.
    [
      '{"cmd":"echo \\u0022hunter2|xyzQ9\\u0022 | docker login -u ci --password-stdin"}',
      '{"cmd":"echo [redacted:argv] | docker login -u ci --password-stdin"}',
    ],
    // Near misses.
    ["grep -f <(echo ERROR) app.log", "grep -f <(echo ERROR) app.log"],
    [
      "echo data | openssl rsa -in k -passin file:pw.txt",
      "echo data | openssl rsa -in k -passin file:pw.txt",
    ],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});
