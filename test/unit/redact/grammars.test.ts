/**
 * The grammars of docs/redaction.md as properties of `redactText`: generated secrets in every key
 * form, separator, quoting, escaping depth and disguise, URL authority, provider token, identity
 * quoting and marker trick are masked whole (no canary segment survives).
 */
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pseudonymize, redact, redactText } from "../../../lib/redact/index.ts";
import { holdsProviderPrefix } from "../../../lib/redact/rules/provider-tokens.ts";
import {
  anyShape,
  commandShape,
  escapeDepth,
  identityShape,
  keyName,
  keyValueShape,
  keyValueShapeOf,
  leaks,
  markerShape,
  nextLinesShape,
  nextLinesText,
  positionalCallShape,
  providerShape,
  type Shape,
  segment,
  structureShape,
  twoWordKeyShape,
  urlShape,
} from "./shapes.ts";

const masksAll = (arb: fc.Arbitrary<Shape>, numRuns: number): void => {
  fc.assert(
    fc.property(arb, (shape) => {
      const out = redactText(shape.text);
      expect(
        leaks([shape], out),
        `${shape.family}: ${JSON.stringify(shape.text)} → ${JSON.stringify(out)}`,
      ).toEqual([]);
      expect(out).toMatch(/\[redacted:|\[withheld\]/);
    }),
    { numRuns },
  );
};

describe("§3a grammars (generated)", () => {
  it("key-value: every key form, separator, quoting, escaping depth 0–3 and disguise", () => {
    masksAll(keyValueShape, 2000);
  });
  it("a type note between key and value (go-spew, PHP's dumps, declarations), at every depth and disguise", () => {
    masksAll(keyValueShapeOf([25]), 600);
  });
  it("ODBC braces holding `;`, `=` and `}}`, as a later field and as the first", () => {
    masksAll(keyValueShapeOf([26]), 400);
  });
  it("PostgreSQL's dollar-quoted, E'…' and U&'…' strings after PASSWORD", () => {
    masksAll(keyValueShapeOf([27]), 400);
  });
  it('a secret-named function\'s first argument and a pair\'s second item (`setPassword("v")`, `{password, "v"}`)', () => {
    masksAll(keyValueShapeOf([28]), 400);
  });
  it('the password argument of well-known APIs that take it by position (`db.auth("u", "v")`)', () => {
    masksAll(positionalCallShape, 600);
  });
  it("URL authorities: empty user, bare token user, @ / ? : # inside the password", () => {
    masksAll(urlShape, 500);
  });
  it("provider tokens of the catalog, after any lead character", () => {
    masksAll(providerShape, 800);
  });
  it("identities in every quoting are never shown raw", () => {
    masksAll(identityShape, 500);
  });
  it("markers and pseudonyms shield nothing", () => {
    masksAll(markerShape, 200);
  });
  it('keys of two words: `api key`, `"Private Key"`', () => {
    masksAll(twoWordKeyShape, 300);
  });
  it("lists, objects and tuples as a secret's value, at any nesting and escaping depth", () => {
    masksAll(structureShape, 600);
  });
  it("a YAML value on the lines after its key, its breaks JSON-escaped at depth 1–3 inside a log field", () => {
    masksAll(nextLinesShape, 600);
  });
  it("a YAML value on the lines after its key, in a text of real lines (`\\n`, `\\r\\n`): masked, its sibling kept", () => {
    fc.assert(
      fc.property(fc.constantFrom("\n", "\r\n"), fc.nat(), (lineBreak, seed) => {
        const [shape] = fc.sample(nextLinesText(lineBreak), { seed, numRuns: 1 });
        const out = redactText(shape!.text);
        const why = `${shape!.family}: ${JSON.stringify(shape!.text)} → ${JSON.stringify(out)}`;
        expect(leaks([shape!], out), why).toEqual([]);
        expect(out, why).toContain(`user: ${shape!.keep}`);
        expect(out.startsWith(`config:${lineBreak}`), why).toBe(true);
      }),
      { numRuns: 600 },
    );
  });
  it("lines after a key that names no secret, or at a secret key's own indentation, stay byte for byte", () => {
    const word = fc.stringMatching(/^[a-z]{1,9}$/);
    const line = fc.array(word, { minLength: 1, maxLength: 4 }).map((ws) => ws.join(" "));
    fc.assert(
      fc.property(
        fc.constantFrom("description", "notes", "command", "keyboard", "author", "password", "token"),
        fc.integer({ min: 0, max: 4 }),
        fc.constantFrom("", " |", " >-"),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), line), { minLength: 1, maxLength: 3 }),
        fc.constantFrom("\n", "\r\n", "\\n"),
        (key, indent, head, lines, lineBreak) => {
          const secret = key === "password" || key === "token";
          // (A secret key's escaped break before an unindented line reads as a word of its value: masked.)
          fc.pre(!secret || lineBreak !== "\\n");
          // A secret key's lines stay only at its own indentation or less, and not as a list.
          const body = lines.map(
            ([d, l]) => `${" ".repeat(secret ? Math.max(0, indent - d) : indent + d + 1)}${l}`,
          );
          const text = [`${" ".repeat(indent)}${key}:${secret ? "" : head}`, ...body].join(lineBreak);
          expect(redactText(text)).toBe(text);
        },
      ),
      { numRuns: 400 },
    );
  });
  it("command lines and connect strings: the tools' flags, Oracle's user/password@, proxies without a scheme", () => {
    masksAll(commandShape, 600);
  });

  // Two secrets on one line where one grammar's reading used to take the other's key with it,
  // found by generating pairs of shapes on one line: [line, secrets that must not show].
  it.each([
    ['password=a1" } level=error msg="--password B2c3', ["B2c3"]],
    ['password=a1" } config "Api Key"="B2c3"', ["B2c3"]],
    ["password=a1'b2 ALTER USER app WITH PASSWORD 'B2c3 D4e5'", ["B2c3", "D4e5"]],
    ["password=a1'A1b2,C3d4 password->B2c3'D4e5 E5f6'", ["A1b2", "B2c3", "D4e5", "E5f6"]],
    ['echo \'u1:A1b2\' | chpasswd "password"≔ "B2c3"', ["A1b2", "B2c3"]],
    ["redis-cli -h cache AUTH default A1b2 password=B2c3|D4e5", ["A1b2", "B2c3", "D4e5"]],
    ["redis-cli -h cache AUTH default A1b2 config api key&equals;B2c3,D4e5", ["A1b2", "B2c3", "D4e5"]],
    ['1700000000.107412 [0 10.0.0.7:60866] "AUTH" "A1b2" password&#61;B2c3,D4e5', ["A1b2", "B2c3", "D4e5"]],
    ["htpasswd -b /etc/nginx/.htpasswd u1 A1b2 password=B2c3", ["A1b2", "B2c3"]],
  ] as Array<[string, string[]]>)("two secrets on one line: %s", (line, secrets) => {
    const out = redactText(line);
    for (const secret of secrets) expect(out, `${line} → ${out}`).not.toContain(secret);
  });

  // A trigger word that runs through an escape before the key (`\u003c` + `RED…` reads `cred`).
  it.each([
    ["\\u003cREDIS_PASS\\u003eB2c3d4\\u003c/REDIS_PASS\\u003e", ["B2c3d4"]],
    ["\\u003cCREDS\\u003eB2c3d4\\u003c/CREDS\\u003e", ["B2c3d4"]],
    ["\\u0022creds\\u0022: \\u0022B2c3d4\\u0022", ["B2c3d4"]],
  ] as Array<[string, string[]]>)("a key after an escape: %s", (line, secrets) => {
    const out = redactText(line);
    for (const secret of secrets) expect(out, `${line} → ${out}`).not.toContain(secret);
  });

  it("a key's here-document (HCL `<<EOT`, `<<-EOT`, Ruby `<<~EOS`, PHP `<<<'EOT'`), lines real or escaped", () => {
    fc.assert(
      fc.property(
        keyName,
        fc.constantFrom(" = ", "=", ": ", " => "),
        fc.constantFrom("<<", "<<-", "<<~", "<<<"),
        fc.constantFrom("", "'", '"'),
        fc.constantFrom("EOF", "EOT", "EOS", "SQL", "END_PW", "X1"),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), segment, segment), { minLength: 1, maxLength: 3 }),
        fc.tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom("", ";", ",")),
        fc.constantFrom("\n", "\r\n"),
        fc.integer({ min: 0, max: 2 }),
        fc.stringMatching(/^[a-z]{7,10}$/),
        (key, sep, opener, quote, word, lines, [pad, after], lineBreak, depth, keep) => {
          const body = lines.map(([indent, a, b]) => `${" ".repeat(indent)}${a} ${b}`);
          const text = [
            `${key}${sep}${opener}${quote}${word}${quote}`,
            ...body,
            `${" ".repeat(pad)}${word}${after}`,
            `user = ${keep}`,
          ].join(lineBreak);
          const written = escapeDepth(text, depth, false);
          const out = redactText(written);
          const shape = {
            text: written,
            canaries: lines.flatMap(([, a, b]) => [a, b]),
            family: "here-document",
          };
          const why = `${JSON.stringify(written)} → ${JSON.stringify(out)}`;
          expect(leaks([shape], out), why).toEqual([]);
          expect(out, why).toContain(`user = ${keep}`);
        },
      ),
      { numRuns: 400 },
    );
  });
  it("a string in triple quotes (TOML, Python: three double or single quotes) across lines, real or escaped", () => {
    fc.assert(
      fc.property(
        keyName,
        fc.constantFrom(" = ", "=", ": "),
        fc.constantFrom('"', "'"),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), segment, segment), { minLength: 1, maxLength: 3 }),
        fc.constantFrom("\n", "\r\n", " "),
        fc.integer({ min: 0, max: 2 }),
        fc.stringMatching(/^[a-z]{7,10}$/),
        (key, sep, quote, lines, lineBreak, depth, keep) => {
          const q = quote.repeat(3);
          const body = lines.map(([indent, a, b]) => `${" ".repeat(indent)}${a} ${b}`).join(lineBreak);
          const text = `${key}${sep}${q}${lineBreak}${body}${lineBreak}${q}${lineBreak}user = ${keep}`;
          const written = escapeDepth(text, depth, false);
          const out = redactText(written);
          const shape = {
            text: written,
            canaries: lines.flatMap(([, a, b]) => [a, b]),
            family: "triple-quoted",
          };
          const why = `${JSON.stringify(written)} → ${JSON.stringify(out)}`;
          expect(leaks([shape], out), why).toEqual([]);
          expect(out, why).toContain(`user = ${keep}`);
        },
      ),
      { numRuns: 400 },
    );
  });
  it("a value continued on indented lines after `=` or `:` (an INI file's, YAML's), spaces or tabs, breaks real or escaped", () => {
    fc.assert(
      fc.property(
        keyName,
        fc.constantFrom(" =", "=", ":", " :"),
        fc.constantFrom(" ", "\t"),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), segment, segment), { minLength: 1, maxLength: 3 }),
        fc.constantFrom("\n", "\r\n"),
        fc.integer({ min: 0, max: 2 }),
        fc.stringMatching(/^[a-z]{7,10}$/),
        (key, sep, pad, lines, lineBreak, depth, keep) => {
          const first = lines[0]![0];
          const body = lines.map(
            ([d, a, b], k) => `${pad.repeat(k === 0 ? first : first + (d % 2))}${a} ${b}`,
          );
          const text = ["[db]", `${key}${sep}`, ...body, `user = ${keep}`].join(lineBreak);
          const written = escapeDepth(text, depth, false);
          const out = redactText(written);
          const shape = { text: written, canaries: lines.flatMap(([, a, b]) => [a, b]), family: "continued" };
          const why = `${JSON.stringify(written)} → ${JSON.stringify(out)}`;
          expect(leaks([shape], out), why).toEqual([]);
          expect(out, why).toContain(`user = ${keep}`);
        },
      ),
      { numRuns: 400 },
    );
  });
  it("a Go MySQL data source name's user and password (`user:password@tcp(db:3306)/app`), however written", () => {
    const passwordChar = fc.constantFrom("@", ":", "/", "=", "!", "#", "%", "(", "&", "?");
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/),
        fc.array(fc.tuple(segment, passwordChar), { maxLength: 2 }),
        segment,
        fc.constantFrom(
          "tcp(db:3306)",
          "tcp4(10.0.0.5:3306)",
          "tcp6([::1]:3306)",
          "unix(/var/run/mysqld/mysqld.sock)",
        ),
        fc.constantFrom(
          "DSN=",
          "MYSQL_DSN=",
          'dsn: "',
          'sql.Open("mysql", "',
          "-dsn ",
          "connecting to ",
          '{"dsn":"',
        ),
        fc.integer({ min: 0, max: 2 }),
        (user, parts, last, address, before, depth) => {
          const password = parts.map(([a, c]) => a + c).join("") + last;
          const text = escapeDepth(
            `${before}${user}:${password}@${address}/app?parseTime=true`,
            depth,
            false,
          );
          const out = redactText(text);
          const shape = { text, canaries: [...parts.map(([a]) => a), last], family: "go-dsn" };
          expect(leaks([shape], out), `${JSON.stringify(text)} → ${JSON.stringify(out)}`).toEqual([]);
          expect(out).toContain(`[redacted:userinfo]@${address.slice(0, 3)}`);
        },
      ),
      { numRuns: 400 },
    );
  });
  it("a data source name's userinfo runs to the last `@` of its word, however many there are", () => {
    expect(redactText("dsn=u:p@tcp(ss@tcp(db:3306)/app")).toBe("dsn=[redacted:userinfo]@tcp(db:3306)/app");
    const many = `dsn=${"a@tcp(".repeat(50)}db)/app`;
    expect(redactText(many)).toBe(`dsn=[redacted:userinfo]@tcp(db)/app`);
  });
  it("an address after `@` without a data source name's userinfo stays", () => {
    for (const text of [
      "listening on tcp(0.0.0.0:3306)",
      "mail ops@example.com",
      "dial @tcp failed",
      "a @unix socket",
    ])
      expect(redactText(text)).toBe(text);
  });
  it("a shell operator after a secret-named flag or a set command's key is never its value", () => {
    // `--db-pass < file`, `gh secret set API_TOKEN < file`: the operator and what follows stay.
    const op = fc.constantFrom("<", "<<<", ">", ">>", "2>", "2>&1", "&>", "|", "||", "&&", "&", ";", "0<");
    const line = fc
      .tuple(
        keyName,
        op,
        fc.constantFrom(" ", "\t"),
        fc.constantFrom("token.txt", "/dev/null", "next", "cat f"),
        fc.boolean(),
      )
      .map(([k, o, blank, target, set]) =>
        // (A here-string into a secret store is the secret: the argv rule masks it.)
        set && o !== "<<<"
          ? `gh secret set ${k.replace(/[.-]/g, "_")}${blank}${o} ${target}`
          : `app --${k.replace(/[._]/g, "-")}${blank}${o} ${target}`,
      );
    fc.assert(
      fc.property(line, (text) => {
        expect(redactText(text)).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it("two secrets of any grammars on two lines of one text (an Event message), each masked", () => {
    // One line's reading must not carry over the next line's keys (an unbalanced quote, a last `@`).
    const pair = fc.tuple(anyShape, anyShape, fc.constantFrom("\n", "\r\n")).map(([a, b, between]) => ({
      text: `${a.text}${between}${b.text}`,
      canaries: [...a.canaries, ...b.canaries],
      family: `${a.family}+${b.family}`,
    }));
    masksAll(pair, 600);
  });
});

describe("the service's own pseudonyms", () => {
  it("pass the chain unchanged for every key id a key may have (1 to 64 characters)", () => {
    // The key loader refuses ids that read like provider tokens (lib/keys.ts): every other id counts.
    const keyId = fc
      .oneof(fc.stringMatching(/^[A-Za-z0-9._-]{1,32}$/), fc.stringMatching(/^[A-Za-z0-9._-]{33,64}$/))
      .filter((id) => !holdsProviderPrefix(id));
    const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
    fc.assert(
      fc.property(
        keyId,
        hex,
        fc.constantFrom("sender_id=", 'sender_id="', "session_key: ", "actor ", "token=", "plain "),
        (id, h, lead) => {
          const pseudonym = `hmac-sha256:v1:${id}:${h}`;
          expect(redactText(`restart requested ${lead}${pseudonym}`)).toContain(pseudonym);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("identity pseudonyms", () => {
  it("are the keyed HMAC-SHA256 of the canonical identity, as restart attribution has always made them", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom("actor", "session") as fc.Arbitrary<"actor" | "session">,
        (v, kind) => {
          const identityKey = { id: "k1", secret: Buffer.alloc(32, 6) };
          const hex = createHmac("sha256", identityKey.secret)
            .update(JSON.stringify(["runtime-logs.identity.v1", kind, "ns", v]), "utf8")
            .digest("hex");
          expect(pseudonymize(identityKey, kind, "ns", v)).toBe(`hmac-sha256:v1:k1:${hex}`);
        },
      ),
      { numRuns: 200 },
    );
  });
  it("are the same for one identity in every form, a URL parameter's ending at the parameter", () => {
    const identity = { identityKey: { id: "k1", secret: Buffer.alloc(32, 5) }, namespaceId: "ns" };
    fc.assert(
      fc.property(segment, fc.constantFrom("sender_id", "sender-id", "senderId"), (v, key) => {
        const p = pseudonymize(identity.identityKey, "actor", "ns", v);
        for (const text of [`${key}=${v}`, `?${key}=${v}&next=1`, `--${key} ${v}`, `"${key}": "${v}"`])
          expect(redact(text, { identity })).toBe(text.replace(v, p));
      }),
      { numRuns: 200 },
    );
  });
});

describe("short strings remembered between calls", () => {
  const ctx = (id: string, fill: number) => ({
    identityKey: { id, secret: Buffer.alloc(32, fill) },
    namespaceId: "ns",
  });
  it("an identity value is pseudonymized with the key of each call, however often it repeats", () => {
    const [a, b] = [ctx("ka", 1), ctx("kb", 2)];
    for (let round = 0; round < 3; round++) {
      for (const c of [a, b, null]) {
        const expected =
          c === null ? "[withheld]" : pseudonymize(c.identityKey, "actor", c.namespaceId, "u-17");
        const out = redact("sender_id=u-17", c === null ? {} : { identity: c });
        expect(out).toBe(`sender_id=${expected}`);
      }
    }
  });
  it("an identity word without a value reads the same under every key", () => {
    for (let round = 0; round < 3; round++) {
      for (const options of [{ identity: ctx("ka", 1) }, { identity: ctx("kb", 2) }, {}]) {
        expect(redact("session resumed", options)).toBe("session resumed");
        expect(redact("sender unknown, token=abc123", options)).toBe(
          "sender unknown, token=[redacted:key-value]",
        );
      }
    }
  });
});
