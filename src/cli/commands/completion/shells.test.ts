/**
 * `bylaw completion zsh|fish|bash` loaded by the real shells, installed the way COMPLETION_HELP says:
 * zsh from a folder on $fpath through compinit (and by `source` after compinit), fish with `source`
 * and `complete -C`, bash with `source`. A shell that is not installed skips its test (say so in CI
 * logs: the skip message names it).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

async function script(shell: string): Promise<string> {
  const io = recordingIo();
  assert.equal(await main(["completion", shell], io), 0);
  return io.stdout.join("\n") + "\n";
}

const has = (shell: string): boolean => spawnSync(shell, ["-c", "exit 0"]).status === 0;
const skip = (shell: string): string | false => (has(shell) ? false : `${shell} is not installed`);

/** zsh with the completion system's builtins replaced by printers, so what _bylaw offers is printed. */
const ZSH_PROBE = `compadd() { print -r -- "compadd $*"; }
_describe() { print -r -- "describe \${(P)2}"; }
_files() { print -r -- files; }
probe() { words=("$@"); CURRENT=$#; _bylaw; }`;

describe("completion scripts in real shells", () => {
  test(
    "zsh: from $fpath through compinit, the first completion already answers; sourced after compinit too",
    { skip: skip("zsh") },
    async () => {
      const dir = tempTree({ _bylaw: await script("zsh") });
      const viaFpath = spawnSync(
        "zsh",
        [
          "-f",
          "-c",
          `fpath=(${dir} $fpath); autoload -Uz compinit; compinit -u -d ${join(dir, "dump")}
print -r -- "comps $_comps[bylaw] $_comps[kubectl-bylaw]"
${ZSH_PROBE}
probe bylaw fix p
probe bylaw apply --val
probe bylaw apply ./x`,
        ],
        { encoding: "utf8" },
      );
      assert.equal(viaFpath.status, 0, viaFpath.stderr);
      const lines = viaFpath.stdout.trim().split("\n");
      assert.equal(lines[0], "comps _bylaw _bylaw");
      assert.equal(lines[1], "compadd -- policy test");
      assert.match(lines[2] ?? "", /^compadd -- .*--values-file .*--set /);
      assert.equal(lines[3], "files");
      const sourced = spawnSync(
        "zsh",
        [
          "-f",
          "-c",
          `autoload -Uz compinit; compinit -u -d ${join(dir, "dump2")}; source ${join(dir, "_bylaw")}
print -r -- "comps $_comps[bylaw]"
${ZSH_PROBE}
probe bylaw cr`,
        ],
        { encoding: "utf8" },
      );
      assert.equal(sourced.status, 0, sourced.stderr);
      const [comps, described] = sourced.stdout.trim().split("\n");
      assert.equal(comps, "comps _bylaw");
      assert.match(described ?? "", /^describe .*create:/);
    },
  );

  test("fish: sourced, complete -C offers commands, templates and flags", { skip: skip("fish") }, async () => {
    const dir = tempTree({ "bylaw.fish": await script("fish") });
    const r = spawnSync(
      "fish",
      [
        "--no-config",
        "-c",
        `source ${join(dir, "bylaw.fish")}; complete -C "bylaw fix p"; echo ---; complete -C "bylaw apply --values"; echo ---; complete -C "bylaw cre"`,
      ],
      { encoding: "utf8" },
    );
    assert.equal(r.status, 0, r.stderr);
    const [templates, flags, commands] = r.stdout.split("---\n").map((s) => s.trim());
    assert.equal(templates, "policy");
    assert.equal(flags, "--values-file");
    assert.match(commands ?? "", /^create\t/);
  });

  test("bash: sourced, the function completes commands and flags", { skip: skip("bash") }, async () => {
    const dir = tempTree({ "bylaw.bash": await script("bash") });
    const r = spawnSync(
      "bash",
      [
        "--norc",
        "-c",
        `source ${join(dir, "bylaw.bash")}; complete -p bylaw
COMP_WORDS=(bylaw cre); COMP_CWORD=1; _bylaw; echo "\${COMPREPLY[@]}"
COMP_WORDS=(bylaw test --output-f); COMP_CWORD=2; _bylaw; echo "\${COMPREPLY[@]}"`,
      ],
      { encoding: "utf8" },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split("\n"), ["complete -o default -F _bylaw bylaw", "create", "--output-format"]);
  });
});
