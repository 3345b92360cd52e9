/**
 * R1: canary leak corpus. Templates for every secret class of docs/pipeline.md §3, filled with fresh
 * random values each run, go through pages, minLevel pages and downloads with random page splits
 * and byte cuts. No canary may appear in any byte a client receives (page JSON, download, cursor).
 */
import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Level } from "../../../lib/domain.ts";
import {
  buildLogPage,
  type CursorState,
  planLogRead,
  redactEventText,
  renderDownload,
  verifyCursor,
} from "../../../lib/runtime-logs/index.ts";
import { BINDING, chunkOf, IDENTITY, KEYS, ModelLog, prng, T0 } from "./harness.ts";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64 = `${ALNUM}+/`;
const B64URL = `${ALNUM}-_`;
const UPPERNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

type Rand = ReturnType<typeof prng>;
const chars = (r: Rand, alphabet: string, n: number): string => {
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[r.int(alphabet.length)];
  return s;
};
/** Random alphanumeric with at least one digit, upper and lower case letter. */
const mixed = (r: Rand, n: number): string => `${chars(r, ALNUM, n - 3)}a7Q`;

/** Each template returns [line, canaries]. */
const TEMPLATES: Array<(r: Rand) => [string, string[]]> = [
  (r) => {
    const s = chars(r, B64URL, 30);
    return [`WARN retry with Authorization: Bearer ${s}`, [s]];
  },
  (r) => {
    const s = mixed(r, 16);
    return [`DEBUG Cookie: sid=${s}; theme=dark`, [s]];
  },
  (r) => {
    const s = mixed(r, 20);
    return [`INFO x-api-key: ${s}`, [s]];
  },
  (r) => {
    const s = mixed(r, 22);
    return [`DEBUG using bearer ${s} upstream`, [s]];
  },
  (r) => {
    const s = Buffer.from(`proxy:${mixed(r, 14)}`).toString("base64");
    return [`DEBUG proxy basic ${s}`, [s]];
  },
  (r) => {
    const s = mixed(r, 14);
    return [`DEBUG machine github.com login bot password ${s}`, [s]];
  },
  (r) => {
    const a = chars(r, B64URL, 30);
    const b = chars(r, B64URL, 40);
    const c = chars(r, B64URL, 43);
    return [`INFO jwt=eyJ${a}.eyJ${b}.${c} ttl=60`, [`eyJ${a}`, `eyJ${b}`, c]];
  },
  (r) => {
    const s = mixed(r, 14);
    return [`INFO connecting to postgres://app:${s}@db:5432/x`, [s]];
  },
  (r) => {
    const s = `ghp_${chars(r, ALNUM, 36)}`;
    return [`INFO cloning with ${s}`, [s]];
  },
  (r) => {
    const s = `sk-proj-${chars(r, ALNUM, 48)}`;
    return [`ERROR rejected key ${s}: 401`, [s]];
  },
  (r) => {
    const s = `xoxb-${chars(r, "0123456789", 11)}-${chars(r, ALNUM, 24)}`;
    return [`INFO slack ${s}`, [s]];
  },
  (r) => {
    const s = `glpat-${chars(r, B64URL, 20)}`;
    return [`WARN gitlab ${s} expires`, [s]];
  },
  (r) => {
    const s = `hf_${chars(r, ALNUM, 34)}`;
    return [`INFO hf ${s}`, [s]];
  },
  (r) => {
    const s = `sk_live_${chars(r, ALNUM, 24)}`;
    return [`INFO STRIPE=${s}`, [s]];
  },
  (r) => {
    const s = `AKIA${chars(r, UPPERNUM, 16)}`;
    return [`INFO aws ${s} bucket`, [s]];
  },
  (r) => {
    const s = `AIza${chars(r, B64URL, 35)}`;
    return [`INFO maps key=${s}`, [s]];
  },
  (r) => {
    const s = mixed(r, 18);
    return [`INFO GET /cb?code=${s}&state=ok 200`, [s]];
  },
  (r) => {
    const s = mixed(r, 18);
    return [`INFO POST https://hooks.example.com/n?token=${s} -> 200`, [s]];
  },
  (r) => {
    const s = mixed(r, 14);
    return [`ERROR login failed user=admin password=${s}`, [s]];
  },
  (r) => {
    const s = mixed(r, 24);
    return [`ERROR body {"api_key": "${s}", "model": "m"}`, [s]];
  },
  (r) => {
    const s = mixed(r, 14);
    return [`WARN loaded DB_PASSWORD=${s} from env`, [s]];
  },
  (r) => {
    const s = mixed(r, 30);
    return [`INFO aws_secret_access_key = ${s}`, [s]];
  },
  (r) => {
    const s = mixed(r, 24);
    return [
      JSON.stringify({ level: "error", subsystem: "tools", message: `failed: {"api_key": "${s}"}` }),
      [s],
    ];
  },
  (r) => {
    const s = mixed(r, 20);
    return [
      JSON.stringify({ level: "warn", subsystem: "gw", message: `rejected token=${s}`, url: `/x?t=${s}` }),
      [s],
    ];
  },
  (r) => {
    const s = mixed(r, 12);
    return [`INFO exec mysql -u root -p${s} -h db x`, [s]];
  },
  (r) => {
    const s = mixed(r, 12);
    return [`INFO exec curl -sS -u deploy:${s} https://x/upload`, [s]];
  },
  (r) => {
    const s = mixed(r, 14);
    return [`INFO exec redis-cli -h c -a ${s} PING`, [s]];
  },
  (r) => {
    const s = `s.${mixed(r, 20)}`;
    return [`INFO exec vault login ${s}`, [s]];
  },
  (r) => {
    const s = mixed(r, 16);
    return [`INFO exec gh auth login --token ${s}`, [s]];
  },
  (r) => {
    const s = mixed(r, 48);
    return [`DEBUG blob ${s} end`, [s]];
  },
  (r) => {
    const s = chars(r, "0123456789", 12);
    return [`gateway restart-dispatch source=cli sender_id=${s} action=restart`, [`sender_id=${s}`]];
  },
  (r) => {
    const s = `agent:main:dm:${mixed(r, 12)}`;
    return [`gateway restart-completed session_key=${s} first_start=false`, [s]];
  },
];

function pemBlock(r: Rand): [string[], string[]] {
  const body = Array.from({ length: 6 }, () => chars(r, B64, 64));
  return [
    ["-----BEGIN RSA PRIVATE KEY-----", ...body, `${chars(r, B64, 20)}==`, "-----END RSA PRIVATE KEY-----"],
    body,
  ];
}

const FILLER = ["INFO tick done", "WARN slow sync", "DEBUG queued", "ERROR upstream 503", "plain line"];

describe("canary leak corpus (R1)", () => {
  it("no canary in any page, minLevel page, download or cursor", () => {
    const seed = randomInt(1, 2 ** 31 - 1);
    const r = prng(seed);
    const canaries: string[] = [];
    const outputs: string[] = [];
    for (let view = 0; view < 40; view++) {
      const log = new ModelLog(`uid-${view}`, 0);
      let ns = BigInt(T0) * 1_000_000n;
      let token: string | null = null;
      const minLevel = ([undefined, "error", "warn", "info", "debug"] as const)[r.int(5)] as
        | Level
        | undefined;
      for (let poll = 0; poll < 12; poll++) {
        // Append a mix of canary lines, PEM blocks and filler, sometimes at one timestamp.
        for (let k = 0; k < 1 + r.int(8); k++) {
          if (r.next() < 0.6) ns += BigInt(r.int(300_000_000));
          const roll = r.next();
          if (roll < 0.5) {
            const [line, secrets] = TEMPLATES[r.int(TEMPLATES.length)]!(r);
            canaries.push(...secrets);
            log.append(ns, line);
          } else if (roll < 0.58) {
            const [lines, secrets] = pemBlock(r);
            canaries.push(...secrets);
            for (const l of lines) {
              if (r.next() < 0.3) ns += 1n;
              log.append(ns, l);
            }
          } else {
            log.append(ns, FILLER[r.int(FILLER.length)]!);
          }
        }
        ns += BigInt(r.int(2_000_000_000));
        const now = Number(ns / 1_000_000n);
        let state: CursorState | null = null;
        if (token !== null) {
          outputs.push(token, Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
          const v = verifyCursor(token, { binding: BINDING, keys: KEYS, now });
          if (v.status === "valid") state = v.state;
        }
        const plan = planLogRead({
          cursor: state,
          pod: "gateway-0",
          podUid: log.uid,
          restartCount: 0,
          previous: false,
          tailLines: 1000,
          now,
        });
        // Byte cuts anywhere, including inside a secret.
        const limitBytes = r.next() < 0.5 ? 1_048_576 : 80 + r.int(3000);
        const read = log.read({ ...plan, limitBytes, nowNs: ns });
        const out = buildLogPage({
          chunk: chunkOf(log, read, limitBytes),
          cursor: state,
          expired: false,
          view:
            minLevel === undefined
              ? { binding: BINDING, tailLines: 1000, source: "gateway" }
              : {
                  binding: BINDING,
                  tailLines: 1000,
                  source: "gateway",
                  minLevel,
                },
          deploymentId: BINDING.deploymentId,
          requestId: "req_00000000-0000-4000-8000-000000000000",
          now,
          keys: { cursor: KEYS, identity: r.next() < 0.5 ? IDENTITY : null },
          namespaceId: BINDING.namespaceId,
          maxBytes: r.next() < 0.5 ? 524_288 : 3_500 + r.int(4000),
        });
        outputs.push(out.body, renderDownload({ agentId: BINDING.agentId }, out.page));
        token = out.cursor;
      }
    }
    // Event text (status route) with node, image, Secret names and a password.
    for (let i = 0; i < 50; i++) {
      const node = `ip-10-${r.int(255)}-${r.int(255)}-${mixed(r, 8).toLowerCase()}.internal`;
      const image = `registry.example.com/team/${mixed(r, 10).toLowerCase()}:v${r.int(9)}`;
      const secret = `creds-${mixed(r, 10).toLowerCase()}`;
      const pw = mixed(r, 14);
      canaries.push(node, image, secret, pw);
      outputs.push(
        redactEventText(`Successfully assigned agents/gw-0 to ${node}`),
        redactEventText(`Failed to pull image "${image}": rpc error: failed to resolve reference "${image}"`),
        redactEventText(`MountVolume.SetUp failed for volume "v" : secret "${secret}" not found`),
        redactEventText(`Error: container exited, config password=${pw}`),
      );
    }
    const all = outputs.join("\n");
    const leaked = canaries.filter((c) => all.includes(c));
    if (leaked.length > 0)
      throw new Error(`seed ${seed}: leaked ${leaked.length} canaries, e.g. ${leaked[0]}`);
    expect(canaries.length).toBeGreaterThan(200);
    expect(all).toContain("[redacted:");
  });
});
