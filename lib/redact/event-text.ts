/**
 * Kubernetes Event text and termination messages additionally lose node names, image references,
 * Secret and ConfigMap names (`[redacted:node]`, `[redacted:image]`, `[redacted:secret]`), found by
 * the usual phrasings plus the caller's hints.
 */
import { M, type RedactionKind } from "./marks.ts";
import { splice } from "./scan.ts";

export interface EventTextHints {
  nodeNames?: readonly string[];
  imageRefs?: readonly string[];
  secretNames?: readonly string[];
  configMapNames?: readonly string[];
}

const NAME = "([A-Za-z0-9][A-Za-z0-9._-]{0,252})";
const EVENT_PATTERNS: Array<[RegExp, RedactionKind]> = [
  [new RegExp(`\\bnodes?/${NAME}`, "gi"), "node"],
  [/\bnode\s+"([^"\s]{1,253})"/gi, "node"],
  [new RegExp(`\\bon\\s+node\\s+${NAME}`, "gi"), "node"],
  [new RegExp(`^Node\\s+${NAME}(?=\\s+(?:status|event))`, "g"), "node"],
  [new RegExp(`\\bSuccessfully assigned\\s+[^\\s]{1,512}\\s+to\\s+${NAME}`, "g"), "node"],
  [new RegExp(`\\bnode(?:Name|_name)?=${NAME}`, "gi"), "node"],
  [/\bimage\s+"([^"]{1,512})"/gi, "image"],
  [/\bimage\s+'([^']{1,512})'/gi, "image"],
  [/\breference\s+"([^"]{1,512})"/gi, "image"],
  [/\bpull access denied for ([^\s,"]{1,512})/gi, "image"],
  [/\bimage=([^\s,"]{1,512})/gi, "image"],
  [/\b(?:secrets?|configmaps?|config\s?maps?)\s+"([^"]{1,253})"/gi, "secret"],
  [/\b(?:Secret|ConfigMap)\s+[a-z0-9][a-z0-9.-]{0,252}\/([a-z0-9][a-z0-9.-]{0,252})/g, "secret"],
  [/\b(?:secrets?|configmaps?)\/([a-z0-9][a-z0-9.-]{0,252})/gi, "secret"],
];

/**
 * Redact Kubernetes Event text and termination messages: node names, image references, Secret and

/** `s` with every named object replaced by its marker. */
export function maskEventNames(s: string, hints: EventTextHints): string {
  const names = new Map<string, RedactionKind>();
  for (const n of hints.nodeNames ?? []) names.set(n, "node");
  for (const n of hints.imageRefs ?? []) names.set(n, "image");
  for (const n of hints.secretNames ?? []) names.set(n, "secret");
  for (const n of hints.configMapNames ?? []) names.set(n, "secret");
  for (const [re, kind] of EVENT_PATTERNS) {
    re.lastIndex = 0;
    for (let m = re.exec(s); m !== null; m = re.exec(s)) {
      const name = m[1];
      if (name !== undefined && name.length > 0 && !names.has(name)) names.set(name, kind);
    }
  }
  // Longest names first, so a name inside another is not left as a fragment.
  const ordered = [...names.entries()]
    .filter(([n]) => n.length > 0)
    .sort((a, b) => b[0].length - a[0].length);
  for (const [name, kind] of ordered) s = replaceAll(s, name, M[kind]);
  return s;
}

/** Every occurrence of `needle` masked as one marker. */
function replaceAll(s: string, needle: string, rep: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  for (let i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + needle.length)) {
    spans.push(i, i + needle.length);
    reps.push(rep);
  }
  return splice(s, spans, reps);
}
