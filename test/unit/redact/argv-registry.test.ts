/**
 * The argv rule's package registries: twine's, Poetry's and uv's upload password (`-p`), Poetry's
 * stored credentials (`config pypi-token.NAME`, `config http-basic.NAME USER PASSWORD`), `cargo login
 * TOKEN`, `dotnet nuget`'s API keys and source passwords, nuget.exe's `setapikey` (in any case, as
 * Windows runs it), each in every quoting, with random blanks, in the places a command sits on a
 * line. Near misses (the same tools without a credential, `-p` of other commands, RubyGems' `--key`,
 * which names a key) stay byte for byte.
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
} from "./argv-words.ts";

/** A command line from the secret `v`, blanks `b(k)` and a case for Windows' names `c(word)`. */
type Form = (v: string, b: (k: number) => string, c: (word: string) => string) => string;

const CREDENTIALS: Form[] = [
  (v, b) => `twine${b(0)}upload${b(1)}-u${b(2)}__token__${b(3)}-p${b(4)}${v}${b(5)}dist/*`,
  (v) => `python -m twine upload --repository testpypi -p${v} dist/*`,
  (v) => `twine register -p=${v} dist/pkg-1.0.tar.gz`,
  (v, b) => `poetry${b(0)}publish${b(1)}--build${b(2)}-u${b(3)}ci${b(4)}-p${b(5)}${v}`,
  (v) => `poetry publish -p ${v} --repository internal`,
  (v, b) => `uv publish${b(0)}-u __token__${b(1)}-p${b(2)}${v} dist/*`,
  (v, b) => `poetry${b(0)}config${b(1)}pypi-token.pypi${b(2)}${v}`,
  (v) => `poetry config --local pypi-token.testpypi ${v}`,
  (v, b) => `poetry config http-basic.internal${b(0)}ci${b(1)}${v}`,
  (v, b) => `cargo${b(0)}login${b(1)}${v}`,
  (v, b) => `cargo login --registry${b(0)}internal${b(1)}${v}`,
  (v) => `cargo login --registry=internal ${v}`,
  (v, b) => `cargo +nightly${b(0)}login -Z unstable-options ${v}`,
  (v) => `cargo login ${v} --registry internal`,
  (v, b) =>
    `dotnet nuget push bin/App.1.0.0.nupkg${b(0)}-k${b(1)}${v}${b(2)}-s https://api.nuget.org/v3/index.json`,
  (v) => `dotnet nuget push App.nupkg -k:${v} --skip-duplicate`,
  (v) => `dotnet nuget push App.nupkg --source internal -k=${v}`,
  (v, b) => `dotnet nuget push App.nupkg${b(0)}-sk${b(1)}${v}`,
  (v, b) =>
    `dotnet nuget add source https://pkgs.example/index.json -n internal -u ci -p${b(0)}${v} --store-password-in-clear-text`,
  (v) => `dotnet nuget update source internal --username ci -p ${v}`,
  (v, b, c) =>
    `${c("nuget")}${b(0)}${c("setapikey")}${b(1)}${v}${b(2)}${c("-Source")} https://pkgs.example/nuget`,
  (v, _, c) => `${c("NuGet.exe")} ${c("SetApiKey")} ${c("-Source")} https://pkgs.example ${v}`,
  (v, _, c) => `${c("nuget")} ${c("setapikey")} ${c("-ConfigFile")} nuget.config ${v}`,
];

/** The same tools without a credential on the line, and `-p` where it means something else. */
const NEAR_MISSES: Array<(b: (k: number) => string, c: (word: string) => string) => string> = [
  (b) => `twine${b(0)}upload${b(1)}dist/*`,
  (b) => `twine upload --repository${b(0)}testpypi --skip-existing dist/*`,
  () => "twine check dist/*",
  (b) => `poetry${b(0)}publish${b(1)}--build`,
  () => "poetry publish -r internal",
  (b) => `poetry config${b(0)}virtualenvs.in-project${b(1)}true`,
  () => "poetry config --list",
  (b) => `poetry config --unset${b(0)}pypi-token.pypi`,
  // Only the user: Poetry asks for the password.
  (b) => `poetry config http-basic.internal${b(0)}ci`,
  () => "poetry config repositories.internal https://pkgs.example/simple/",
  () => "poetry add requests@^2.31 && poetry install -E extra --sync",
  (b) => `cargo build${b(0)}--release${b(1)}-p${b(2)}mycrate`,
  () => "cargo test -p core -- --nocapture",
  () => "cargo publish --dry-run",
  (b) => `cargo${b(0)}login`,
  (b) => `cargo login${b(0)}--registry${b(1)}internal`,
  () => "cargo logout --registry internal",
  (b) => `dotnet nuget push App.nupkg${b(0)}-s https://api.nuget.org/v3/index.json --skip-duplicate`,
  () => "dotnet nuget list source && dotnet nuget locals all --clear",
  (b) => `dotnet build${b(0)}-p:Version=1.2.3 -c Release`,
  () => "dotnet pack -p:PackageVersion=1.0.0 && dotnet nuget push App.nupkg -s internal",
  (_, c) => `${c("nuget")} restore App.sln`,
  (_, c) => `${c("nuget")} pack App.nuspec ${c("-p")} Configuration=Release`,
  (_, c) => `${c("nuget")} sources list`,
  (_, c) => `${c("nuget")} ${c("setapikey")}`,
  () => "gem push pkg-1.0.gem",
  // RubyGems' `--key` names a key of ~/.gem/credentials, not the key itself.
  (b) => `gem push pkg-1.0.gem${b(0)}--key${b(1)}internal_api_key`,
  () => "gem push pkg-1.0.gem -k internal --host https://gems.example",
  (b) => `uv run${b(0)}-p 3.12 pytest`,
  () => "uv publish --index internal dist/*",
];

/** Blanks `b(k)` and a case `c(word)` for a line. */
const style = fc
  .tuple(
    fc.array(blank, { minLength: 6, maxLength: 6 }),
    fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
  )
  .map(([blanks, upper]) => ({
    b: (k: number) => blanks[k % blanks.length]!,
    c: (word: string) => anyCase(word, upper),
  }));

describe("argv: package registries' credentials", () => {
  it("are masked whole in every tool's form, quoting and place on a line (generated)", () => {
    const shape = fc
      .tuple(fc.integer({ min: 0, max: CREDENTIALS.length - 1 }), secretWord, style, context)
      .map(([form, word, { b, c }, at]) => ({
        text: CONTEXTS[at]!(CREDENTIALS[form]!(word.text, b, c)),
        canaries: word.canaries,
        family: `registry/${form}`,
      }));
    masksEach(shape, 1500);
  });

  it("leave the same tools' other commands byte for byte (generated near misses)", () => {
    const line = fc
      .tuple(fc.integer({ min: 0, max: NEAR_MISSES.length - 1 }), style, closedContext)
      .map(([form, { b, c }, at]) => CONTEXTS[at]!(NEAR_MISSES[form]!(b, c)));
    leavesEach(line, 800);
  });

  it.each([
    [
      "twine upload -u __token__ -p Zq8xKv7mWpL3 dist/*",
      "twine upload -u __token__ -p [redacted:argv] dist/*",
    ],
    ["cargo login Zq8xKv7mWpL3", "cargo login [redacted:argv]"],
    ["dotnet nuget push x.nupkg -k Zq8xKv7mWpL3", "dotnet nuget push x.nupkg -k [redacted:argv]"],
    [
      "dotnet nuget push x.nupkg --api-key Zq8xKv7mWpL3",
      "dotnet nuget push x.nupkg --api-key [redacted:argv]",
    ],
    ["poetry config pypi-token.pypi Zq8xKv7mWpL3", "poetry config pypi-token.pypi [redacted:argv]"],
    ["poetry config http-basic.pypi u Zq8xKv7mWpL3", "poetry config http-basic.pypi u [redacted:argv]"],
    ["NuGet SetApiKey Zq8xKv7mWpL3 -Source https://x", "NuGet SetApiKey [redacted:argv] -Source https://x"],
    ["gem push pkg.gem --key rubygems_api_key", "gem push pkg.gem --key rubygems_api_key"],
    ["cargo build", "cargo build"],
  ])("%s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });
});
