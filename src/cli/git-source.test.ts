/** Git URLs as policy paths: Kyverno's URL rule, and `bylaw apply` on a local bare repository served as a file:// URL (no network). */
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "./main.js";
import { recordingIo } from "../../test/support/fake-io.js";
import { isGitUrl, loadPolicyPaths, parseGitUrl } from "./git-source.js";

const policy = (name: string, label: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ${name}}
spec:
  validationFailureAction: Enforce
  rules:
    - name: need-${label}
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate: {message: "label ${label} is required", pattern: {metadata: {labels: {${label}: "?*"}}}}
`;
const pod =
  "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop, labels: {team: a}}\nspec: {containers: [{name: c, image: nginx:1}]}\n";

describe("Git URLs", () => {
  test("Kyverno's rule: http(s) URLs are Git; owner/repository, then the branch, or the folder with --git-branch", () => {
    assert.ok(isGitUrl("https://github.com/kyverno/policies"));
    assert.ok(isGitUrl("http://git.local/a/b"));
    assert.ok(isGitUrl("file:///srv/git/policies.git"));
    assert.ok(!isGitUrl("policies/"));
    assert.ok(!isGitUrl("-"));
    assert.deepEqual(parseGitUrl("https://github.com/kyverno/policies", undefined), {
      ok: true,
      value: { repository: "https://github.com/kyverno/policies", branch: "main", folder: "" },
    });
    assert.deepEqual(parseGitUrl("https://github.com/kyverno/policies/release-1.10/", undefined), {
      ok: true,
      value: { repository: "https://github.com/kyverno/policies", branch: "release-1.10", folder: "" },
    });
    assert.deepEqual(parseGitUrl("https://github.com/kyverno/policies/pod-security/baseline/", "main"), {
      ok: true,
      value: { repository: "https://github.com/kyverno/policies", branch: "main", folder: "pod-security/baseline" },
    });
    assert.deepEqual(parseGitUrl("file:///srv/git/policies.git/dev", undefined), {
      ok: true,
      value: { repository: "file:///srv/git/policies.git", branch: "dev", folder: "" },
    });
    const short = parseGitUrl("https://github.com/kyverno", undefined);
    assert.ok(!short.ok && /expected https:\/\/<host>\/<owner>\/<repository>\/<branch>/.test(short.error));
  });

  describe("bylaw apply on a file:// repository", () => {
    let root = "";
    let url = "";
    let pods = "";
    before(() => {
      root = mkdtempSync(join(tmpdir(), "bylaw-git-test-"));
      const git = (cwd: string, ...args: string[]) =>
        execFileSync(
          "git",
          ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main", ...args],
          { cwd, stdio: "pipe" },
        );
      git(root, "init", "--quiet", "--bare", "policies.git");
      const work = join(root, "work");
      mkdirSync(join(work, "labels"), { recursive: true });
      git(work, "init", "--quiet");
      writeFileSync(join(work, "labels", "team.yaml"), policy("require-team", "team"));
      writeFileSync(join(work, "owner.yaml"), policy("require-owner", "owner"));
      writeFileSync(
        join(work, "labels", "kyverno-test.yaml"),
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\npolicies: [team.yaml]\n",
      );
      git(work, "add", ".");
      git(work, "commit", "--quiet", "-m", "main");
      git(work, "push", "--quiet", join(root, "policies.git"), "HEAD:main");
      git(work, "checkout", "--quiet", "-b", "dev");
      writeFileSync(join(work, "owner.yaml"), policy("require-app", "app"));
      git(work, "commit", "--quiet", "-am", "dev");
      git(work, "push", "--quiet", join(root, "policies.git"), "dev");
      url = `file://${join(root, "policies.git")}`;
      pods = join(root, "pods.yaml");
      writeFileSync(pods, pod);
    });

    const results = async (args: string[]): Promise<{ code: number; rows: string[]; stderr: string }> => {
      const io = recordingIo();
      const code = await main(["apply", ...args, "-r", pods, "--output-format", "json"], io);
      const rows =
        code === 2
          ? []
          : (JSON.parse(io.stdout.join("\n")) as { results: { policy: string; result: string }[] }).results
              .map((r) => `${r.policy} ${r.result}`)
              .sort();
      return { code, rows, stderr: io.stderr.join("\n") };
    };

    test("no branch in the URL and no --git-branch: main, every YAML of the repository", async () => {
      const r = await results([url]);
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(r.rows, ["require-owner fail", "require-team pass"]);
      assert.match(
        r.stderr,
        /policies\.git: 1 document is not a policy \(tests, resources, values\.\.\.\) and is not read, as Kyverno skips them/,
      );
    });

    test("the rest of the URL is the branch; with --git-branch it is the folder", async () => {
      assert.deepEqual((await results([`${url}/dev`])).rows, ["require-app fail", "require-team pass"]);
      assert.deepEqual((await results([`${url}/labels`, "--git-branch", "dev"])).rows, ["require-team pass"]);
      assert.deepEqual((await results([`${url}/labels`, "-b", "main"])).rows, ["require-team pass"]);
    });

    test("a branch the repository does not have is exit 2 naming the URL and git's message", async () => {
      const r = await results([url, "--git-branch", "nope"]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, new RegExp(`cannot clone file://.*policies\\.git \\(branch nope\\): .*nope`));
    });

    test("the clone goes to a temporary folder that is removed afterwards; files are named by URL and branch", async () => {
      const tmpRoot = mkdtempSync(join(tmpdir(), "bylaw-git-tmp-"));
      const { docs } = await loadPolicyPaths([url], { tmpRoot });
      assert.deepEqual(readdirSync(tmpRoot), []);
      assert.deepEqual(docs.map((d) => d.source).sort(), [`${url}@main/labels/team.yaml`, `${url}@main/owner.yaml`]);
      const failed = await loadPolicyPaths([`${url}/x`], { tmpRoot });
      assert.equal(failed.docs.length, 1);
      assert.deepEqual(readdirSync(tmpRoot), []);
      const outside = await loadPolicyPaths([`${url}/..%2F..`], { gitBranch: "main", tmpRoot });
      assert.match(outside.docs[0]?.error ?? "", /outside the repository/);
    });

    test("--git-branch without a Git URL is a usage error", async () => {
      const io = recordingIo();
      assert.equal(await main(["apply", join(root, "work"), "-r", pods, "--git-branch", "main"], io), 2);
      assert.match(io.stderr.join("\n"), /--git-branch needs a Git URL among the POLICY paths/);
    });
  });
});
