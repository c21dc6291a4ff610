/** `bylaw policy-sets [NAME]`, through the CLI entry, on the fixture sets. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { packageRoot } from "../../policy-sets/sets-dir.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

process.env["BYLAW_POLICY_SETS_DIR"] = join(packageRoot(), "test", "fixtures", "policy-sets");

async function run(...args: string[]) {
  const io = recordingIo();
  const code = await main(["policy-sets", ...args], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("bylaw policy-sets", () => {
  test("lists each set with its number of policies and description", async () => {
    const { code, out, err } = await run();
    assert.equal(code, 0);
    assert.equal(err, "");
    const lines = out.split("\n");
    assert.match(lines[0] ?? "", /^NAME +POLICIES +DESCRIPTION$/);
    assert.match(
      lines[1] ?? "",
      /^demo-basics +2 +Two basic checks for the tests: a team label and pinned image tags\.$/,
    );
    assert.match(lines[2] ?? "", /^demo-strict +2 +The team label again/);
    assert.doesNotMatch(out, /not-a-set/);
  });

  test("NAME lists the set's policies: severity, action, title, and what each checks", async () => {
    const { code, out } = await run("demo-basics");
    assert.equal(code, 0);
    assert.match(out, /^demo-basics: 2 policies\nTwo basic checks/);
    assert.match(out, /^POLICY +SEVERITY +ACTION +TITLE$/m);
    assert.match(
      out,
      /^require-team +medium +Audit +Require a team label\n {4}Every Pod must say which team owns it, so that alerts reach someone\. Add metadata\.labels\.team\.$/m,
    );
    assert.match(out, /^disallow-latest +high +Audit +Disallow the latest tag$/m);
    assert.match(out, /bylaw apply --policy-set demo-basics -r RESOURCE/);
  });

  test("an unknown NAME exits 2 and lists the available sets", async () => {
    const { code, out, err } = await run("nope");
    assert.equal(code, 2);
    assert.equal(out, "");
    assert.match(err, /^bylaw policy-sets: unknown policy set "nope"; available sets: demo-basics, demo-strict/);
  });

  test("--output-format json, for scripts", async () => {
    const list = JSON.parse((await run("--output-format", "json")).out) as { name: string; policies: number }[];
    assert.deepEqual(
      list.map((s) => [s.name, s.policies]),
      [
        ["demo-basics", 2],
        ["demo-strict", 2],
      ],
    );
    const one = JSON.parse((await run("demo-strict", "--output-format", "json")).out) as {
      policies: { name: string; severity?: string }[];
    };
    assert.deepEqual(
      one.policies.map((p) => [p.name, p.severity]),
      [
        ["require-team", "medium"],
        ["no-privileged", "high"],
      ],
    );
  });

  test("a broken set file is a warning; the good sets still list", async () => {
    const saved = process.env["BYLAW_POLICY_SETS_DIR"];
    process.env["BYLAW_POLICY_SETS_DIR"] = tempTree({
      "bad/set.yaml": "apiVersion: v1\nkind: PolicySet\n",
      "ok/set.yaml": "apiVersion: bylaw.dev/v1alpha1\nkind: PolicySet\nmetadata: {name: ok}\npolicies: [p.yaml]\n",
      "ok/p.yaml": "",
    });
    try {
      const { code, out, err } = await run();
      assert.equal(code, 0);
      assert.match(err, /warning: .*bad\/set\.yaml: apiVersion must be bylaw\.dev\/v1alpha1/);
      assert.match(out, /^ok +0$/m);
    } finally {
      process.env["BYLAW_POLICY_SETS_DIR"] = saved;
    }
  });

  test("usage: at most one NAME; --help; listed in bylaw --help", async () => {
    assert.equal((await run("a", "b")).code, 2);
    const help = await run("--help");
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: bylaw policy-sets \[NAME\]/);
    const io = recordingIo();
    await main(["--help"], io);
    assert.match(io.stdout.join("\n"), /policy-sets +list the policy sets/);
  });
});
