/** `bylaw apply --policy-set` and `--enforce`, through the CLI entry (main), on the fixture sets. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runInTree } from "../../../../test/support/cli-run.js";
import { join } from "node:path";
import { packageRoot } from "../../policy-sets/sets-dir.js";

const FIXTURES = join(packageRoot(), "test", "fixtures", "policy-sets");
process.env["BYLAW_POLICY_SETS_DIR"] = FIXTURES;

const PODS = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: "nginx:latest", securityContext: {privileged: true}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: old, namespace: legacy, labels: {team: a}}
spec: {containers: [{name: c, image: "nginx:1", securityContext: {privileged: true}}]}
`;

interface JsonOut {
  summary: Record<string, number>;
  results: { policy: string; rule: string; resource: string; result: string; action: string }[];
}

const apply = (args: string[], files: Record<string, string> = { "pods.yaml": PODS }) =>
  runInTree("apply", args, files);

describe("bylaw apply --policy-set", () => {
  test("runs a set's policies by name; only policy documents of its folders load", async () => {
    const { code, out, err } = await apply([
      "--policy-set",
      "demo-basics",
      "-r",
      "$DIR/pods.yaml",
      "--output-format",
      "summary",
    ]);
    assert.equal(code, 1);
    assert.match(out, /FAIL {3}disallow-latest\/pinned-tag {2}\[Audit\]/);
    assert.match(out, /FAIL {3}require-team\/check-team {2}\[Audit\]/);
    assert.match(out, /Applied 2 policies to 2 resources/);
    assert.doesNotMatch(err, /skipped/, "the set's test suite and resource files are not reported");
  });

  test("repeatable, combines with POLICY paths, and a policy two sets share runs once", async () => {
    const extra =
      "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: extra}\nspec:\n  rules:\n    - name: r\n      match: {any: [{resources: {kinds: [Pod]}}]}\n      validate: {message: m, pattern: {metadata: {name: '?*'}}}\n";
    const { out } = await apply(
      [
        "$DIR/extra.yaml",
        "--policy-set",
        "demo-basics",
        "--policy-set",
        "demo-strict",
        "-r",
        "$DIR/pods.yaml",
        "--output-format",
        "summary",
      ],
      { "pods.yaml": PODS, "extra.yaml": extra },
    );
    assert.match(out, /Applied 4 policies to 2 resources/);
    assert.equal(out.match(/require-team\/check-team/g)?.length, 1);
  });

  test("an unknown set exits 2 and lists the sets there are", async () => {
    const { code, out, err } = await apply(["--policy-set", "pss-strict", "-r", "$DIR/pods.yaml"]);
    assert.equal(code, 2);
    assert.equal(out, "");
    assert.match(err, /unknown policy set "pss-strict"; available sets: demo-basics, demo-strict/);
  });

  test("neither POLICY nor --policy-set is a usage error", async () => {
    const { code, err } = await apply(["-r", "$DIR/pods.yaml"]);
    assert.equal(code, 2);
    assert.match(err, /give at least one POLICY \(or --policy-set NAME\) and one -r RESOURCE/);
  });
});

describe("bylaw apply --enforce", () => {
  test("every policy runs as Enforce; an override that keeps a namespace in Audit still does", async () => {
    const before = JSON.parse(
      (await apply(["--policy-set", "demo-strict", "-r", "$DIR/pods.yaml", "--output-format", "json"])).out,
    ) as JsonOut;
    const after = JSON.parse(
      (await apply(["--policy-set", "demo-strict", "--enforce", "-r", "$DIR/pods.yaml", "--output-format", "json"]))
        .out,
    ) as JsonOut;
    const actions = (o: JsonOut) =>
      o.results.filter((r) => r.result === "fail").map((r) => `${r.policy} ${r.resource} ${r.action}`);
    assert.deepEqual(actions(before), [
      "require-team Pod/shop/web Audit",
      "no-privileged Pod/shop/web Audit",
      "no-privileged Pod/legacy/old Audit",
    ]);
    assert.deepEqual(actions(after), [
      "require-team Pod/shop/web Enforce",
      "no-privileged Pod/shop/web Enforce",
      "no-privileged Pod/legacy/old Audit",
    ]);
  });

  test("POLICY paths and rule-level failureAction switch too; with --audit-warn only the override kept in Audit warns", async () => {
    const latest = join(FIXTURES, "demo-basics", "images", "disallow-latest.yaml");
    const { code, out } = await apply([
      latest,
      "--policy-set",
      "demo-strict",
      "--enforce",
      "--audit-warn",
      "-r",
      "$DIR/pods.yaml",
    ]);
    assert.equal(code, 1);
    assert.match(out, /\npolicy disallow-latest -> resource shop\/Pod\/web failed:\n1 - pinned-tag /);
    assert.match(out, /\npolicy no-privileged -> resource shop\/Pod\/web failed:\n/);
    assert.match(out, /\npolicy no-privileged -> resource legacy\/Pod\/old failed as audit warning:\n1 - privileged /);
    assert.match(out, /pass: 2, fail: 3, warn: 1, error: 0, skip: 0 /);
  });
});
