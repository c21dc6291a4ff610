/** The default `bylaw apply` text is kyverno apply's, byte for byte, through the CLI entry (main). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runInTree } from "../../../test/support/cli-run.js";

const auditPolicy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: Audit
  rules:
    - name: check-team
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      validate:
        message: "Add metadata.labels.team."
        pattern: {metadata: {labels: {team: "?*"}}}
`;
const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\n";

const apply = (args: string[], files: Record<string, string>) => runInTree("apply", args, files);

describe("bylaw apply's default text: kyverno apply's layout", () => {
  test("a failing rule: the header, `policy -> resource failed:`, `1 - RULE MESSAGE`, the totals with their trailing space", async () => {
    const { code, out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml"], {
      "p.yaml": auditPolicy,
      "r.yaml": configMap,
    });
    assert.equal(code, 1);
    assert.equal(
      out,
      [
        "",
        "Applying 1 policy rule(s) to 1 resource(s)...",
        "policy require-team -> resource shop/ConfigMap/settings failed:",
        "1 - check-team validation error: Add metadata.labels.team. rule check-team failed at path /metadata/labels/",
        "",
        "pass: 0, fail: 1, warn: 0, error: 0, skip: 0 ",
      ].join("\n"),
    );
  });

  test("--audit-warn on an Audit policy: `failed as audit warning:`, counted as a warning, exit 0", async () => {
    const { code, out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--audit-warn"], {
      "p.yaml": auditPolicy,
      "r.yaml": configMap,
    });
    assert.equal(code, 0);
    assert.match(
      out,
      /\npolicy require-team -> resource shop\/ConfigMap\/settings failed as audit warning:\n1 - check-team validation error: Add metadata\.labels\.team\. .*\n\npass: 0, fail: 0, warn: 1, error: 0, skip: 0 $/,
    );
    const enforced = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--audit-warn"], {
      "p.yaml": auditPolicy.replace("Audit", "Enforce"),
      "r.yaml": configMap,
    });
    assert.equal(enforced.code, 1);
    assert.match(enforced.out, /resource shop\/ConfigMap\/settings failed:\n/);
  });

  test("a mutate rule that does not apply: `skipped mutate policy`; one that errors: its error after `error: ` and a space", async () => {
    const mutate = (name: string, patch: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ${name}}
spec:
  rules:
    - name: ${name}
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      mutate: {patchStrategicMerge: ${patch}}
`;
    const { out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml"], {
      "p.yaml": `${mutate("label", "{metadata: {labels: {(team): bravo}}}")}---\n${mutate("broken", "{data: {x: '{{ request.object.nope.nope }}'}}")}`,
      "r.yaml": configMap,
    });
    assert.match(
      out,
      /\nMutation has been applied successfully\.\nskipped mutate policy label -> resource shop\/ConfigMap\/settings\n/,
    );
    assert.match(
      out,
      /\n\nerror while applying mutate policy broken -> resource shop\/ConfigMap\/settings \nerror: {2}\S/,
    );
  });

  test("the header counts a kyverno.io policy's autogen rules, one per policy of another kind, and JSON payloads", async () => {
    const podPolicy = auditPolicy.replace("kinds: [ConfigMap]", "kinds: [Pod]");
    const jsonPolicy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: private-buckets}
spec:
  evaluation: {mode: JSON}
  validations: [{expression: "!has(object.public)", message: must not be public}]
`;
    const { out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--json", "$DIR/plan.json"], {
      "p.yaml": `${podPolicy}---\n${jsonPolicy}`,
      "r.yaml": configMap,
      "plan.json": JSON.stringify({ public: true }),
    });
    // check-team, autogen-check-team, autogen-cronjob-check-team; the ValidatingPolicy; a resource and a payload.
    assert.match(out, /^\nApplying 4 policy rule\(s\) to 2 resource\(s\)\.\.\.\n/);
    // A ValidatingPolicy's result has no rule name (Kyverno's vpol engine leaves it empty): two spaces, as Go's Println.
    assert.match(out, /\npolicy private-buckets -> resource JSON payload failed:\n1 - {2}must not be public\n/);
  });

  test("-i: no header; the results go to stderr, the resources alone to stdout", async () => {
    const { out, err } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "-i"], {
      "p.yaml": auditPolicy,
      "r.yaml": configMap,
    });
    assert.equal(out, "");
    assert.match(err, /^policy require-team -> resource shop\/ConfigMap\/settings failed:\n/);
  });

  test("a validate rule's error: stdout is kyverno apply's (only counted), stderr names the rule and its reason", async () => {
    const erroring = auditPolicy.replace(
      'pattern: {metadata: {labels: {team: "?*"}}}',
      'deny: {conditions: {any: [{key: "{{ request.object.missing.value }}", operator: Equals, value: x}]}}',
    );
    const { code, out, err } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml"], {
      "p.yaml": erroring,
      "r.yaml": configMap,
    });
    assert.equal(code, 1);
    assert.equal(
      out,
      ["", "Applying 1 policy rule(s) to 1 resource(s)...", "", "pass: 0, fail: 0, warn: 0, error: 1, skip: 0 "].join(
        "\n",
      ),
    );
    assert.match(
      err,
      /^policy require-team -> resource shop\/ConfigMap\/settings error:\n1 - check-team .*Unknown key "missing"/m,
    );
  });
});
