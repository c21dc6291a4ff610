/** `bylaw apply` with the flags Kyverno users type (kyverno apply v1.19), through the CLI entry. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runInTree } from "../../../../test/support/cli-run.js";
import { parseApplyArgs } from "./options.js";

const policy = (action: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: ${action}
  rules:
    - name: check-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: team label required
        pattern: {metadata: {labels: {team: "?*"}}}
`;
const pod = (name: string, labels: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: shop, labels: ${labels}}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const goodPod = pod("good", "{team: a}");
const badPod = pod("bad", "{}");
const mutate = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-team}
spec:
  rules:
    - name: add-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {team: platform}}}}
`;
const exception = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: allow-bad, namespace: shop}
spec:
  exceptions: [{policyName: require-team, ruleNames: [check-team]}]
  match: {any: [{resources: {kinds: [Pod], names: [bad]}}]}
`;

const apply = (args: string[], files: Record<string, string>) => runInTree("apply", args, files);

describe("bylaw apply: kyverno apply's flags", () => {
  test("-t/--table prints every rule result as Kyverno's table (namespace/Kind/name, Pass/Fail)", async () => {
    const files = { "p.yaml": policy("Enforce"), "r.yaml": `${goodPod}---\n${badPod}` };
    const { code, out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "-t", "--remove-color"], files);
    assert.equal(code, 1);
    // kyverno apply's header first (the rule and its two autogen copies), then the table (no totals line).
    assert.match(out, /^\nApplying 3 policy rule\(s\) to 2 resource\(s\)\.\.\.\n│─/);
    assert.match(out, /│ ID │ POLICY +│ RULE +│ RESOURCE +│ RESULT │ REASON │/);
    assert.match(out, /│ 1 +│ require-team │ check-team │ shop\/Pod\/good │ Pass +│/);
    assert.match(out, /│ 2 +│ require-team │ check-team │ shop\/Pod\/bad +│ Fail +│/);
    assert.doesNotMatch(out, /pass: /);
    const long = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--table", "--detailed-results"], files);
    assert.match(
      long.out,
      /│ \x1b\[40;32mMESSAGE +\x1b\[0m │/,
      "without --remove-color the header is in Kyverno's colours",
    );
    assert.match(long.out, /validation error: team label required/);
  });

  test("-t: a mutated resource is printed before the table, as kyverno apply's processor prints it, and not after", async () => {
    const files = { "m.yaml": mutate, "r.yaml": badPod };
    const { code, out } = await apply(["$DIR/m.yaml", "-r", "$DIR/r.yaml", "-t", "--remove-color"], files);
    assert.equal(code, 0, out);
    const table = out.indexOf("│─");
    assert.ok(table > 0, out);
    assert.match(out.slice(0, table), /\npolicy add-team applied to shop\/Pod\/bad:\napiVersion: v1\n/);
    assert.match(out.slice(0, table), /team: platform\n[\s\S]*Mutation has been applied successfully\.$/);
    assert.doesNotMatch(out.slice(table), /apiVersion|# mutated/);
  });

  test("-t: a policy without rules of its own (a ValidatingAdmissionPolicy, a ValidatingPolicy) has an empty RULE, as in Kyverno's table", async () => {
    const vap = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: vap-team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"}]
`;
    const vpol = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: vpol-team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"}]
`;
    const files = { "p.yaml": `${vap}---\n${vpol}---\n${policy("Audit")}`, "r.yaml": goodPod };
    const { code, out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "-t"], files);
    assert.equal(code, 0, out);
    assert.match(out, /│ \d +│ vap-team +│ +│ shop\/Pod\/good │ Pass/);
    assert.match(out, /│ \d +│ vpol-team +│ +│ shop\/Pod\/good │ Pass/);
    assert.match(out, /│ \d +│ require-team +│ check-team │ shop\/Pod\/good │ Pass/);
  });

  test("-t followed by a path warns that it is --table now and names --target-resource", async () => {
    const files = { "p.yaml": policy("Enforce"), "r.yaml": goodPod };
    const { code, err } = await apply(["-t", "$DIR/p.yaml", "-r", "$DIR/r.yaml"], files);
    assert.equal(code, 0, err);
    assert.match(err, /-t is --table, as in kyverno apply; .*p\.yaml is read as a POLICY path.*--target-resource/);
  });

  test("--remove-color, --continue-on-fail, --continue-on-error, --concurrent and --batch-size are accepted", async () => {
    const files = { "p.yaml": policy("Enforce"), "r.yaml": goodPod };
    const flags = ["--remove-color", "--continue-on-fail", "--continue-on-error", "--concurrent", "4"];
    const { code, out, err } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", ...flags, "--batch-size", "50"], files);
    assert.equal(code, 0, err);
    assert.match(out, /pass: 1, fail: 0/);
  });

  test("--resources and --target-resources are the plural spellings of --resource and --target-resource", async () => {
    const files = { "p.yaml": policy("Enforce"), "r.yaml": badPod, "t.yaml": goodPod };
    const { code, out } = await apply(
      ["$DIR/p.yaml", "--resources", "$DIR/r.yaml", "--target-resources", "$DIR/t.yaml"],
      files,
    );
    assert.equal(code, 1);
    assert.match(out, /pass: 0, fail: 1/);
  });

  test("-r, -e and --set take comma lists as Kyverno's string-list flags do; a stray quote is a usage error", async () => {
    const files = { "p.yaml": policy("Enforce"), "a.yaml": goodPod, "b.yaml": badPod, "e.yaml": exception };
    const both = await apply(["$DIR/p.yaml", "-r", "$DIR/a.yaml,$DIR/b.yaml"], files);
    assert.equal(both.code, 1, both.err);
    assert.match(both.out, /pass: 1, fail: 1/);
    const excepted = await apply(["$DIR/p.yaml", "--resource=$DIR/a.yaml,$DIR/b.yaml", "-e", "$DIR/e.yaml"], files);
    assert.equal(excepted.code, 0, excepted.err);
    assert.match(excepted.out, /pass: 1, fail: 0/);
    const quoted = await apply(["$DIR/p.yaml", "-r", 'a"b.yaml'], files);
    assert.equal(quoted.code, 2);
    assert.match(quoted.err, /invalid argument "a\\"b\.yaml" for --resource: column 2/);
  });

  test("--set a=b,c=d is two pairs, as Kyverno's docs write them; a quoted pair keeps its comma", () => {
    const parsed = parseApplyArgs(["p.yaml", "-r", "r.yaml", "-s", 'team=blue,"list=a,b"', "--set", "x=1"]);
    assert.equal(parsed.kind, "run");
    if (parsed.kind === "run") assert.deepEqual(parsed.options.set, ["team=blue", "list=a,b", "x=1"]);
  });

  test("--warn-exit-code N: warnings (and no fail or error) exit N, with Kyverno's line", async () => {
    const files = { "p.yaml": policy("Audit"), "r.yaml": badPod };
    const run = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--audit-warn", "--warn-exit-code", "3"], files);
    assert.equal(run.code, 3);
    // On stdout after the text, as kyverno apply prints it (with no line break of its own).
    assert.match(run.out, /skip: 0 \nexit as warnExitCode is 3\n?$/);
    assert.doesNotMatch(run.err, /exit as/);
    const json = await apply(
      ["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--audit-warn", "--warn-exit-code", "3", "--output-format", "json"],
      files,
    );
    assert.equal(json.code, 3);
    assert.match(json.err, /exit as warnExitCode is 3/, "after a machine format it goes to stderr");
    assert.doesNotMatch(json.out, /exit as/);
    const failing = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--warn-exit-code", "3"], files);
    assert.equal(failing.code, 1, "a failure still exits 1");
    const bad = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--warn-exit-code", "x"], files);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--warn-exit-code must be an integer/);
  });

  test("--warn-no-pass: a run where nothing passed exits with --warn-exit-code", async () => {
    const files = { "p.yaml": policy("Enforce"), "r.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n" };
    const run = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--warn-no-pass", "--warn-exit-code", "4"], files);
    assert.equal(run.code, 4);
    assert.match(run.out, /skip: 0 \nexit as no objects satisfied policy\n?$/);
    assert.equal((await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--warn-exit-code", "4"], files)).code, 0);
  });

  test("--exceptions-with-resources honours the PolicyExceptions among the -r documents", async () => {
    const files = { "p.yaml": policy("Enforce"), "r.yaml": `${badPod}---\n${exception}` };
    const without = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml"], files);
    assert.equal(without.code, 1);
    const withFlag = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--exceptions-with-resources"], files);
    assert.equal(withFlag.code, 0, withFlag.out);
    assert.match(withFlag.out, /fail: 0, warn: 0, error: 0, skip: 1/);
  });

  test("-i/--stdin: stdout carries only the mutated resources, the results go to stderr", async () => {
    const files = { "m.yaml": mutate, "r.yaml": badPod };
    const { code, out, err } = await apply(["$DIR/m.yaml", "-r", "$DIR/r.yaml", "-i"], files);
    assert.equal(code, 0, err);
    assert.match(out, /^# mutated by add-team\napiVersion: v1\nkind: Pod/);
    assert.match(out, /team: platform/);
    assert.doesNotMatch(out, /pass: /);
    assert.match(err, /pass: 1, fail: 0/);
  });
});
