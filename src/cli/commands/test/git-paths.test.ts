/**
 * `bylaw test URL [--git-branch BRANCH]` on a local bare repository served as a file:// URL (no
 * network), as `kyverno test` reads a Git repository: the rest of the URL is the branch, or with
 * --git-branch the folder; suites are named by repository and branch; the clone is removed.
 */
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { policyFixture } from "../../../../test/support/policy-fixtures.js";

const policy = policyFixture("require-team");
const pod =
  "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {team: a}}\nspec: {containers: [{name: c, image: nginx}]}\n";
const suite = (result: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: team-${result}}
policies: [policy.yaml]
resources: [pod.yaml]
results: [{policy: require-team, rule: check-team, resources: [web], kind: Pod, result: ${result}}]
`;

const hasGit = spawnSync("git", ["--version"]).status === 0;

describe("bylaw test on a Git URL", { skip: hasGit ? false : "git is not installed" }, () => {
  let url = "";
  before(() => {
    const root = mkdtempSync(join(tmpdir(), "bylaw-test-git-"));
    const git = (cwd: string, ...args: string[]) =>
      execFileSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main", ...args],
        { cwd, stdio: "pipe" },
      );
    git(root, "init", "--quiet", "--bare", "suites.git");
    const work = join(root, "work");
    mkdirSync(join(work, "pass"), { recursive: true });
    mkdirSync(join(work, "other"), { recursive: true });
    git(work, "init", "--quiet");
    for (const d of ["pass", "other"]) {
      writeFileSync(join(work, d, "policy.yaml"), policy);
      writeFileSync(join(work, d, "pod.yaml"), pod);
      writeFileSync(join(work, d, "kyverno-test.yaml"), suite("pass"));
    }
    git(work, "add", ".");
    git(work, "commit", "--quiet", "-m", "main");
    git(work, "push", "--quiet", join(root, "suites.git"), "HEAD:main");
    git(work, "checkout", "--quiet", "-b", "broken");
    writeFileSync(join(work, "other", "kyverno-test.yaml"), suite("fail"));
    git(work, "commit", "--quiet", "-am", "broken");
    git(work, "push", "--quiet", join(root, "suites.git"), "broken");
    url = `file://${join(root, "suites.git")}`;
  });

  const run = async (args: string[]) => {
    const io = recordingIo();
    const code = await main(["test", ...args, "-o", "bylaw-json"], io);
    return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
  };

  test("no branch: main, every suite of the repository, named by repository and branch", async () => {
    const r = await run([url]);
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, new RegExp(`${url.replace(/[/.]/g, "\\$&")}@main/pass"`));
    assert.doesNotMatch(r.out, /bylaw-git-/);
  });

  test("the rest of the URL is the branch; with --git-branch it is the folder", async () => {
    assert.equal((await run([`${url}/broken`])).code, 1, "the broken branch's other suite fails");
    assert.equal(
      (await run([`${url}/pass`, "--git-branch", "broken"])).code,
      0,
      "only the pass folder of the broken branch",
    );
    assert.equal((await run([`${url}/other`, "-b", "broken"])).code, 1);
  });

  test("the clone is removed after the run; a branch that does not exist is an error naming it", async () => {
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith("bylaw-git-")).length;
    const missing = await run([url, "--git-branch", "nope"]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /cannot clone file:\/\/.*suites\.git \(branch nope\)/);
    await run([url]);
    assert.equal(readdirSync(tmpdir()).filter((f) => f.startsWith("bylaw-git-")).length, before);
  });

  test("--git-branch without a Git URL is a usage error", async () => {
    const r = await run([".", "--git-branch", "main"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /--git-branch needs a Git URL among the PATHs/);
  });
});
