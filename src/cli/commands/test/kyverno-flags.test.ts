/** `bylaw test` with the flags Kyverno users type (kyverno test v1.19), and its exit code for a missing PATH. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";
import { policyFixture } from "../../../../test/support/policy-fixtures.js";

const pods = `apiVersion: v1
kind: Pod
metadata: {name: good, labels: {team: a}}
spec: {containers: [{name: c, image: nginx:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const suite = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: suite}
policies: [policy.yaml]
resources: [resources.yaml]
results:
- {policy: require-team, rule: check-team, resources: [good], kind: Pod, result: pass}
- {policy: require-team, rule: check-team, resources: [bad], kind: Pod, result: pass}
`;

async function run(args: string[]) {
  const dir = tempTree({
    "s/policy.yaml": policyFixture("require-team"),
    "s/resources.yaml": pods,
    "s/kyverno-test.yaml": suite,
  });
  const io = recordingIo();
  const code = await main(["test", ...args.map((a) => a.replace("$DIR", dir))], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("bylaw test: kyverno test's flags", () => {
  test("-t/--test-case-selector runs only the rows whose policy, rule and resource match", async () => {
    const all = await run(["$DIR"]);
    assert.equal(all.code, 1);
    assert.match(all.out, /1 tests passed and 1 tests failed/);
    const good = await run(["$DIR", "-t", "policy=require-team,rule=check-*,resource=good"]);
    assert.equal(good.code, 0, good.out);
    assert.match(good.out, /1 tests passed and 0 tests failed/);
    const bad = await run(["$DIR", "--test-case-selector", "resource=b?d"]);
    assert.equal(bad.code, 1);
    assert.match(bad.out, /0 tests passed and 1 tests failed/);
  });

  test("a selector with an unknown key is a usage error (exit 2) naming the part", async () => {
    const r = await run(["$DIR", "-t", "polcy=x"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /--test-case-selector "polcy=x": expected comma-separated policy=NAME.*got "polcy=x"/);
  });

  test("--remove-color is accepted (Bylaw's output has no colour)", async () => {
    const r = await run(["$DIR", "--remove-color", "-t", "resource=good"]);
    assert.equal(r.code, 0, r.err);
  });

  test("a PATH that does not exist exits 2 (an input error), naming it", async () => {
    const r = await run([join("$DIR", "nope")]);
    assert.equal(r.code, 2);
    assert.match(r.err, /nope: no such file or directory/);
    const withOthers = await run(["$DIR", join("$DIR", "nope")]);
    assert.equal(withOthers.code, 2);
  });

  test("-o yaml prints the -o json document as YAML; -o markdown one Markdown table and the summary line", async () => {
    const asJson = await run(["$DIR", "-o", "json"]);
    const asYaml = await run(["$DIR", "-o", "yaml"]);
    assert.equal(asYaml.code, 1);
    const dirless = (text: string) => text.replace(/\/tmp\/bylaw-test-\w+/g, "DIR");
    assert.deepEqual(parse(dirless(asYaml.out)), JSON.parse(dirless(asJson.out)));
    assert.match(asYaml.out, /^summary:\n {2}passed: 1\n {2}failed: 1\n/);
    const md = await run(["$DIR", "--output-format", "markdown", "--detailed-results"]);
    assert.equal(md.code, 1);
    assert.equal(
      md.out.split("\n").slice(0, 4).join("\n"),
      [
        "| ID | SUITE | POLICY | RULE | RESOURCE | RESULT | REASON | MESSAGE |",
        "|---|---|---|---|---|---|---|---|",
        "| 1 | suite | require-team | check-team | v1/Pod/default/good | Pass | Ok | validation rule 'check-team' passed. |",
        "| 2 | suite | require-team | check-team | v1/Pod/default/bad | Fail | Want pass, got fail | validation error: label team is required. rule check-team failed at path /metadata/labels/ |",
      ].join("\n"),
    );
    assert.match(md.out, /\n\nTest Summary: 1 tests passed and 1 tests failed$/);
  });

  test("the table is Kyverno's: its borders, and each resource as apiVersion/Kind/namespace/name (a row that found none: as written)", async () => {
    const dir = tempTree({
      "p.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ns-team}
spec:
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Namespace, ConfigMap]}}]}
    validate: {message: need team, pattern: {metadata: {labels: {team: "?*"}}}}
`,
      "r.yaml": `apiVersion: v1
kind: Namespace
metadata: {name: alpha, labels: {team: a}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm1, namespace: shop, labels: {team: a}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm2, labels: {team: a}}
`,
      "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: ns}
policies: [p.yaml]
resources: [r.yaml]
results:
- {policy: ns-team, rule: team, kind: Namespace, resources: [alpha], result: pass}
- {policy: ns-team, rule: team, kind: ConfigMap, resources: [cm1, cm2, missing], result: pass}
`,
    });
    const io = recordingIo();
    assert.equal(await main(["test", dir], io), 1);
    const table = io.stdout
      .join("\n")
      .split("\n")
      .filter((l) => l.startsWith("│"));
    assert.deepEqual(table, [
      "│────│─────────│──────│──────────────────────────│────────│───────────│",
      "│ ID │ POLICY  │ RULE │ RESOURCE                 │ RESULT │ REASON    │",
      "│────│─────────│──────│──────────────────────────│────────│───────────│",
      "│ 1  │ ns-team │ team │ v1/Namespace//alpha      │ Pass   │ Ok        │",
      "│ 2  │ ns-team │ team │ v1/ConfigMap/shop/cm1    │ Pass   │ Ok        │",
      "│ 3  │ ns-team │ team │ v1/ConfigMap/default/cm2 │ Pass   │ Ok        │",
      "│ 4  │ ns-team │ team │ ConfigMap/missing        │ Fail   │ Not found │",
      "│────│─────────│──────│──────────────────────────│────────│───────────│",
    ]);
  });

  test("--warnings-as-errors (kyverno test's) is refused by name, exit 2", async () => {
    const r = await run(["$DIR", "--warnings-as-errors"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /--warnings-as-errors \(a kyverno test flag\) is not supported by Bylaw yet/);
  });
});
