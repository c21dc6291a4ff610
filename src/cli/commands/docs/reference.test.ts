/** `bylaw docs` and `bylaw completion`: generated from the commands' own --help texts. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";
import { flagsOf } from "./reference.js";

test("flagsOf lists each long flag of a help text once", () => {
  assert.deepEqual(flagsOf("Flags:\n  -o, --output PATH  x\n      --dry-run   y\n  --output again\nnot --a-flag"), [
    "--output",
    "--dry-run",
  ]);
});

describe("bylaw docs", () => {
  test("writes an index and a page per command, with its usage, flags and exit codes", async () => {
    const dir = join(tempTree({}), "ref");
    const io = recordingIo();
    assert.equal(await main(["docs", "-o", dir], io), 0);
    const files = readdirSync(dir).sort();
    for (const f of [
      "bylaw.md",
      "bylaw_apply.md",
      "bylaw_test.md",
      "bylaw_create.md",
      "bylaw_fix.md",
      "bylaw_completion.md",
    ])
      assert.ok(files.includes(f), f);
    const apply = readFileSync(join(dir, "bylaw_apply.md"), "utf8");
    assert.match(apply, /^# bylaw apply/);
    assert.match(apply, /- `--set`/);
    assert.match(apply, /3\s+internal error/);
    assert.match(readFileSync(join(dir, "bylaw.md"), "utf8"), /\[bylaw test\]\(bylaw_test\.md\)/);
  });
});

describe("bylaw completion", () => {
  async function script(shell: string) {
    const io = recordingIo();
    const code = await main(["completion", shell], io);
    return { code, text: io.stdout.join("\n"), err: io.stderr.join("\n") };
  }
  test("bash: valid syntax, completes commands, templates and flags", async () => {
    const { code, text } = await script("bash");
    assert.equal(code, 0);
    assert.equal(spawnSync("bash", ["-n"], { input: text }).status, 0);
    assert.match(text, /apply\) words=''; opts='[^']*--values-file[^']*--set/);
    assert.match(text, /create\) words='test values user-info exception cleanup-policy metrics-config'/);
    assert.match(text, /complete -o default -F _bylaw bylaw/);
    const done = spawnSync(
      "bash",
      ["-c", `${text}\nCOMP_WORDS=(bylaw fix p); COMP_CWORD=2; _bylaw; echo "\${COMPREPLY[@]}"`],
      { encoding: "utf8" },
    );
    assert.equal(done.stdout.trim(), "policy");
  });
  test("zsh and fish name every command and its flags", async () => {
    const zsh = await script("zsh");
    assert.match(zsh.text, /^#compdef bylaw/);
    assert.match(zsh.text, /'test:run kyverno-test\.yaml suites/);
    const fish = await script("fish");
    assert.match(fish.text, /complete -c bylaw -n "__fish_seen_subcommand_from test" -l output-format/);
    assert.match(fish.text, /-a 'completion' -d/);
  });
  test("an unknown shell is a one-line usage error", async () => {
    const r = await script("powershell");
    assert.equal(r.code, 2);
    assert.equal(r.err.split("\n").length, 2);
  });
});
