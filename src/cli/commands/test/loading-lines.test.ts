/**
 * `bylaw test` prints, per suite, what Kyverno's test prints before its table (commands/test/test.go
 * v1.19): the test and its file, each thing it loads, a duplicated resource it drops (the first is
 * used), and the counts it applies; a selector that picks none of a suite's rows leaves it out.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";
import { policyFixture } from "../../../../test/support/policy-fixtures.js";

const pod = (name: string, labels: string): string => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: team, labels: {${labels}}}
spec: {containers: [{name: c, image: nginx:1}]}
`;

const suite = (name: string, userinfo: boolean): string => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: ${name}}
policies: [policy.yaml]
resources: [a.yaml, b.yaml]
${userinfo ? "userinfo: user.yaml\n" : ""}results:
- {policy: require-team, rule: check-team, resources: [good], kind: Pod, result: pass}
`;

const USER = `apiVersion: cli.kyverno.io/v1alpha1
kind: UserInfo
metadata: {name: user}
clusterRoles: [admin]
userInfo: {username: alice}
`;

async function run(args: readonly string[], files: Record<string, string>) {
  const dir = tempTree(files);
  const io = recordingIo();
  const code = await main(["test", ...args.map((a) => a.replace("$DIR", dir))], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n"), dir };
}

test("each suite's loading lines, as Kyverno's test prints them, before its table", async () => {
  const r = await run(["$DIR"], {
    "s/policy.yaml": policyFixture("require-team"),
    // The second file names `good` again (labelled otherwise): Kyverno keeps the first and warns.
    "s/a.yaml": `${pod("good", "team: a")}---\n${pod("other", "team: b")}`,
    "s/b.yaml": pod("good", "x: y"),
    "s/user.yaml": USER,
    "s/kyverno-test.yaml": suite("first", true),
  });
  assert.equal(r.code, 0, r.out + r.err);
  const file = `${r.dir}/s/kyverno-test.yaml`;
  const before = r.out.slice(0, r.out.indexOf("│"));
  assert.equal(
    before,
    [
      `Loading test  ( ${file} ) ...`,
      "  Loading values/variables ...",
      "  Loading user infos ...",
      "  Loading policies ...",
      "  Loading resources ...",
      "  warning: found duplicated resource Pod good team",
      "  Loading exceptions ...",
      "  Applying 1 policy to 2 resources with 0 exceptions ...",
      "  Checking results ...",
      "",
      "",
    ].join("\n"),
  );
  assert.match(r.out, /│ Pass +│ Ok +│/, "the first `good` (labelled) is the one evaluated");
  assert.match(r.out, /\n\n\nTest Summary: 1 tests passed and 0 tests failed\n$/);
});

test("a selector that picks none of a suite's rows leaves the suite out, loading lines and all", async () => {
  const r = await run(["$DIR", "-t", "resource=nothing"], {
    "s/policy.yaml": policyFixture("require-team"),
    "s/a.yaml": pod("good", "team: a"),
    "s/b.yaml": pod("other", "team: b"),
    "s/kyverno-test.yaml": suite("first", false),
  });
  assert.doesNotMatch(r.out, /Loading test/);
  assert.match(r.out, /Test Summary: 0 tests passed and 0 tests failed/);
});

test("a Pod without a namespace and one in default with the same name are one Pod: the second is the duplicate, named in default", async () => {
  const inDefault = pod("good", "team: a").replace("namespace: team", "namespace: default");
  const without = pod("good", "x: y").replace("namespace: team, ", "");
  const r = await run(["$DIR"], {
    "s/policy.yaml": policyFixture("require-team"),
    "s/a.yaml": inDefault,
    "s/b.yaml": without,
    "s/kyverno-test.yaml": suite("first", false),
  });
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /\n {2}warning: found duplicated resource Pod good default\n/);
  assert.match(r.out, /Applying 1 policy to 1 resource with 0 exceptions/);
});
