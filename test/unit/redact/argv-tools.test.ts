/**
 * The argv rule's tools whose credential follows a flag or sits among their arguments, generated over
 * the grammar: the secret in every quoting, random blanks, the options in any order among each other
 * and the positional arguments, the command anywhere on a line or in a JSON string escaped 1–3 times:
 * - ssh-keygen's passphrases, `-N new` and `-P old`, spaced or attached; not `-N ''` (none), nor a
 *   key made without `-N`.
 * Near misses (the same tools without a credential) stay byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactText } from "../../../lib/redact/index.ts";
import { blank, CONTEXTS, leavesEach, masksEach, secretWord, type Word } from "./argv-words.ts";
import { escapeDepth } from "./shapes.ts";

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

/** Where a command line goes: one of `CONTEXTS`, or a JSON string escaped `depth` (1–3) times. */
const placement = fc.oneof(
  fc.integer({ min: 0, max: CONTEXTS.length - 1 }).map((at) => (cmd: string) => CONTEXTS[at]!(cmd)),
  fc.tuple(fc.integer({ min: 1, max: 3 }), fc.boolean()).map(
    ([depth, unicode]) =>
      (cmd: string) =>
        `{"level":"info","cmd":"${escapeDepth(cmd.replaceAll("\t", " "), depth, unicode)}"}`,
  ),
);

/** Lines of `tools` with `input`'s word for `V`, their words in any order, joined by random blanks. */
const toolLines = (tools: Tool[], input: fc.Arbitrary<Word>) =>
  fc
    .tuple(
      fc.integer({ min: 0, max: tools.length - 1 }),
      input,
      fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
      fc.array(blank, { minLength: 3, maxLength: 3 }),
      placement,
    )
    .map(([which, word, picks, blanks, place]) => {
      const tool = tools[which]!;
      const words = [tool.name, ...arrange(tool, picks)].map((w) => w.replaceAll(V, () => word.text));
      const cmd = words.map((w, k) => (k === 0 ? w : `${blanks[k % blanks.length]}${w}`)).join("");
      return { text: place(cmd), canaries: word.canaries, family: `tool/${tool.name}` };
    });

/** Lines of `tools` as `toolLines` has them, with no secret in them. */
const plainLines = (tools: Tool[]) =>
  toolLines(tools, fc.constant({ text: "", canaries: [] })).map((l) => l.text);

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
