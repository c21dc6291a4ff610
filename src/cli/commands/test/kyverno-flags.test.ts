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
    assert.equal(all.err, "Error: 1 tests failed", "kyverno test's last line on stderr");
    const good = await run(["$DIR", "-t", "policy=require-team,rule=check-*,resource=good"]);
    assert.equal(good.code, 0, good.out);
    assert.match(good.out, /1 tests passed and 0 tests failed/);
    assert.doesNotMatch(good.err, /Error/);
    const bad = await run(["$DIR", "--test-case-selector", "resource=b?d"]);
    assert.equal(bad.code, 1);
    assert.match(bad.out, /0 tests passed and 1 tests failed/);
  });

  test("a selector with an unknown key is a usage error (exit 2) naming the part", async () => {
    const r = await run(["$DIR", "-t", "polcy=x"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /--test-case-selector "polcy=x": expected comma-separated policy=NAME.*got "polcy=x"/);
  });

  test("--remove-color: the table's header without Kyverno's colours", async () => {
    const r = await run(["$DIR", "--remove-color", "-t", "resource=good"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /│ ID │ POLICY +│/);
    assert.doesNotMatch(r.out, /\x1b/);
    const coloured = await run(["$DIR", "-t", "resource=good"]);
    assert.match(coloured.out, /│ \x1b\[40;32mID\x1b\[0m │/);
  });

  test("a PATH that does not exist exits 2 (an input error), naming it", async () => {
    const r = await run([join("$DIR", "nope")]);
    assert.equal(r.code, 2);
    assert.match(r.err, /nope: no such file or directory/);
    const withOthers = await run(["$DIR", join("$DIR", "nope")]);
    assert.equal(withOthers.code, 2);
  });

  test("-o json, yaml and markdown print kyverno test's layout: each suite's loading lines, its rows, the summary", async () => {
    const loading = [
      "  Loading values/variables ...",
      "  Loading policies ...",
      "  Loading resources ...",
      "  Loading exceptions ...",
      "  Applying 1 policy to 2 resources with 0 exceptions ...",
      "  Checking results ...",
      "",
    ].join("\n");
    const asJson = await run(["$DIR", "-o", "json", "--detailed-results"]);
    assert.equal(asJson.code, 1);
    const [head = "", body = "", tail = ""] = asJson.out.split(/\n(?=\[|\nTest Summary)/);
    assert.match(head, /^Loading test {2}\( .*kyverno-test\.yaml \) \.\.\.\n/);
    assert.ok(head.endsWith(loading), head);
    assert.deepEqual(JSON.parse(body), [
      {
        ID: 1,
        Message: "validation rule 'check-team' passed.",
        POLICY: "require-team",
        REASON: "Ok",
        RESOURCE: "v1/Pod/default/good",
        RESULT: "Pass",
        RULE: "check-team",
      },
      {
        ID: 2,
        Message: "validation error: label team is required. rule check-team failed at path /metadata/labels/",
        POLICY: "require-team",
        REASON: "Want pass, got fail",
        RESOURCE: "v1/Pod/default/bad",
        RESULT: "Fail",
        RULE: "check-team",
      },
    ]);
    assert.equal(tail, "\nTest Summary: 1 tests passed and 1 tests failed\n");
    const asYaml = await run(["$DIR", "-o", "yaml", "--detailed-results"]);
    assert.equal(asYaml.code, 1);
    const yamlBody = asYaml.out.slice(asYaml.out.indexOf("\n- ID: 1"), asYaml.out.indexOf("\nTest Summary"));
    assert.deepEqual(parse(yamlBody), JSON.parse(body));
    const md = await run(["$DIR", "--output-format", "markdown"]);
    assert.equal(md.code, 1);
    assert.ok(
      md.out.includes(
        [
          "  Checking results ...",
          "",
          "| ID | POLICY | RULE | RESOURCE | RESULT | REASON | ",
          "|----|----|----|----|----|----|",
          "| 1 | require-team | check-team | v1/Pod/default/good | Pass | Ok |",
          "| 2 | require-team | check-team | v1/Pod/default/bad | Fail | Want pass, got fail |",
          "",
          "",
          "",
          "Test Summary: 1 tests passed and 1 tests failed",
        ].join("\n"),
      ),
      md.out,
    );
  });

  test("--fail-only prints no suite's rows, then after the summary every failing row (json: the suites' IDs; table: renumbered)", async () => {
    const asJson = await run(["$DIR", "-o", "json", "--fail-only"]);
    assert.equal(asJson.code, 1);
    const summary = "Test Summary: 1 out of 2 tests failed";
    assert.ok(asJson.out.includes(`  Checking results ...\n\n${summary}\n\n\n[`), asJson.out);
    const failed = JSON.parse(asJson.out.slice(asJson.out.indexOf("\n[") + 1)) as { ID: number; RESOURCE: string }[];
    assert.deepEqual(
      failed.map((r) => [r.ID, r.RESOURCE]),
      [[2, "v1/Pod/default/bad"]],
    );
    const table = await run(["$DIR", "--fail-only"]);
    assert.ok(
      table.out.includes(`  Checking results ...\n\n${summary}\n\nAggregated Failed Test Cases : \n`),
      table.out,
    );
    assert.match(table.out, /│ 1 +│ require-team │ check-team │ v1\/Pod\/default\/bad │ Fail/);
    assert.doesNotMatch(table.out, /default\/good/);
  });

  test("RULE names the rule that gave the result, as kyverno test: autogen- and autogen-cronjob- for Pod controllers", async () => {
    const dir = tempTree({
      "policy.yaml": policyFixture("require-team"),
      "resources.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx:1}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        metadata: {labels: {team: a}}
        spec: {containers: [{name: c, image: nginx:1}], restartPolicy: Never}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
`,
      "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: autogen}
policies: [policy.yaml]
resources: [resources.yaml]
results:
- {policy: require-team, rule: check-team, resources: [web], kind: Deployment, result: fail}
- {policy: require-team, rule: check-team, resources: [nightly], kind: CronJob, result: pass}
- {policy: require-team, rule: check-team, resources: [settings], kind: ConfigMap, result: pass}
`,
    });
    const io = recordingIo();
    assert.equal(await main(["test", dir, "-o", "json"], io), 0, io.stderr.join("\n"));
    const out = io.stdout.join("\n");
    const rows = JSON.parse(out.slice(out.indexOf("\n[") + 1, out.indexOf("\nTest Summary"))) as Record<
      string,
      unknown
    >[];
    assert.deepEqual(
      rows.map((r) => [r["RULE"], r["RESOURCE"], r["REASON"]]),
      [
        ["autogen-check-team", "apps/v1/Deployment/default/web", "Ok"],
        ["autogen-cronjob-check-team", "batch/v1/CronJob/default/nightly", "Ok"],
        // No rule result: the row's rule as written, as Kyverno's Excluded row.
        ["check-team", "v1/ConfigMap/default/settings", "Excluded"],
      ],
    );
    const table = recordingIo();
    await main(["test", dir], table);
    assert.match(
      table.stdout.join("\n"),
      /│ 1 +│ require-team │ autogen-check-team +│ apps\/v1\/Deployment\/default\/web/,
    );
  });

  test("a test with no results prints nothing, as kyverno test skips it; the others print as usual", async () => {
    const dir = tempTree({
      "s/policy.yaml": policyFixture("require-team"),
      "s/resources.yaml": pods,
      "s/kyverno-test.yaml": suite,
      "empty/policy.yaml": policyFixture("require-team"),
      "empty/resources.yaml": pods,
      "empty/kyverno-test.yaml": suite.replace(/results:[^]*$/, "results: []\n").replace("name: suite", "name: empty"),
    });
    const io = recordingIo();
    assert.equal(await main(["test", dir], io), 1);
    const out = io.stdout.join("\n");
    assert.match(out, /Loading test {2}\( \S*\/s\/kyverno-test\.yaml \)/);
    assert.doesNotMatch(out, /\/empty\/kyverno-test\.yaml/);
  });

  test("bylaw-json and bylaw-yaml print Bylaw's document of every suite, the same data", async () => {
    const asJson = await run(["$DIR", "-o", "bylaw-json"]);
    const asYaml = await run(["$DIR", "-o", "bylaw-yaml"]);
    assert.equal(asYaml.code, 1);
    const dirless = (text: string) => text.replace(/\/tmp\/bylaw-test-\w+/g, "DIR");
    assert.deepEqual(parse(dirless(asYaml.out)), JSON.parse(dirless(asJson.out)));
    assert.match(asYaml.out, /^summary:\n {2}passed: 1\n {2}failed: 1\n/);
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
      // The header in Kyverno's colours, as its table writer prints it piped or not.
      "│ \x1b[40;32mID\x1b[0m │ \x1b[40;32mPOLICY \x1b[0m │ \x1b[40;32mRULE\x1b[0m │ \x1b[40;32mRESOURCE                \x1b[0m │ \x1b[40;32mRESULT\x1b[0m │ \x1b[40;32mREASON   \x1b[0m │",
      "│────│─────────│──────│──────────────────────────│────────│───────────│",
      "│ 1  │ ns-team │ team │ v1/Namespace//alpha      │ Pass   │ Ok        │",
      "│ 2  │ ns-team │ team │ v1/ConfigMap/shop/cm1    │ Pass   │ Ok        │",
      "│ 3  │ ns-team │ team │ v1/ConfigMap/default/cm2 │ Pass   │ Ok        │",
      "│ 4  │ ns-team │ team │ ConfigMap/missing        │ Fail   │ Not found │",
      "│────│─────────│──────│──────────────────────────│────────│───────────│",
    ]);
  });

  test("--warnings-as-errors is not a flag of kyverno test v1.19: an unknown option, exit 2, naming it", async () => {
    const r = await run(["$DIR", "--warnings-as-errors"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /--warnings-as-errors/);
    assert.doesNotMatch(r.out, /Test Summary/);
  });
});
