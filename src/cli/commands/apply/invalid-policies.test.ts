/** `bylaw apply`: an invalid policy path fails the run (exit 2) naming file, document and field. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const pod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const valid = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ok}
spec:
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate: {pattern: {metadata: {name: "?*"}}}
`;

const vpol = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: vp}
spec:
  evaluation: {background: {enabled: true}}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: "true"}]
`;

async function apply(policies: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = tempTree({ "policies/p.yaml": policies, "r.yaml": pod });
  const io = recordingIo();
  const code = await main(["apply", join(dir, "policies"), "-r", join(dir, "r.yaml")], io);
  return { code, stdout: io.stdout.join("\n"), stderr: io.stderr.join("\n") };
}

describe("bylaw apply: invalid policies fail the run", () => {
  const cases: [string, string, RegExp][] = [
    [
      "validationFailureAction: Force",
      valid.replace("spec:\n", "spec:\n  validationFailureAction: Force\n"),
      /^error: .*p\.yaml: document 2 \(line \d+\): invalid policy ok: spec\.validationFailureAction: Unsupported value: "Force": supported values: "audit", "enforce", "Audit", "Enforce"/m,
    ],
    [
      "a misspelled rule key",
      valid.replace("validate:", "validat:"),
      /^error: .*p\.yaml: document 2 \(line \d+\): invalid policy ok: spec\.rules\[0\]\.validat: field not declared in schema; did you mean "validate"\?/m,
    ],
    [
      "an unknown field deep in a rule",
      valid.replace("{kinds: [Pod]}", "{kinds: [Pod], namespace: shop}"),
      /spec\.rules\[0\]\.match\.any\[0\]\.resources\.namespace: field not declared in schema; did you mean "namespaces"\?/,
    ],
    [
      "a ValidatingPolicy with a mistyped field (its CRD's schema)",
      vpol.replace("enabled: true", 'enabled: "yes"'),
      /^error: .*p\.yaml: document 2 \(line \d+\): invalid policy vp: spec\.evaluation\.background\.enabled: Invalid value: "string": spec\.evaluation\.background\.enabled in body must be of type boolean$/m,
    ],
    [
      "a ValidatingPolicy with a misspelled field",
      vpol.replace("validations:", "validatons:"),
      /^error: .*p\.yaml: document 2 \(line \d+\): invalid policy vp: spec\.validatons: field not declared in schema; did you mean "validations"\?$/m,
    ],
    [
      "a non-policy document",
      pod,
      /^error: .*p\.yaml: document 2 \(line \d+\): not a policy: kind "Pod" with apiVersion "v1" is not a Kyverno policy/m,
    ],
    ["a YAML syntax error", "kind: [unclosed\n", /^error: .*p\.yaml.*document 2/m],
    [
      "spec.generateExistingOnPolicyUpdate",
      valid.replace("spec:\n", "spec:\n  generateExistingOnPolicyUpdate: true\n"),
      /spec\.generateExistingOnPolicyUpdate: remove the deprecated field spec\.generateExistingOnPolicyUpdate; use generateExisting in each generate rule/,
    ],
    [
      "spec.webhookTimeoutSeconds beside webhookConfiguration.timeoutSeconds",
      valid.replace("spec:\n", "spec:\n  webhookTimeoutSeconds: 5\n  webhookConfiguration: {timeoutSeconds: 5}\n"),
      /spec\.webhookTimeoutSeconds: remove the deprecated field spec\.webhookTimeoutSeconds; spec\.webhookConfiguration\.timeoutSeconds is set and replaces it/,
    ],
    [
      "spec.failurePolicy beside webhookConfiguration.failurePolicy",
      valid.replace("spec:\n", "spec:\n  failurePolicy: Ignore\n  webhookConfiguration: {failurePolicy: Fail}\n"),
      /spec\.failurePolicy: remove the deprecated field spec\.failurePolicy/,
    ],
  ];
  for (const [name, doc, want] of cases) {
    test(`${name}: exit 2, the valid policy still runs`, async () => {
      const { code, stdout, stderr } = await apply(`${valid}---\n${doc}`);
      assert.equal(code, 2, stderr);
      assert.match(stderr, want);
      assert.match(stdout, /pass: 1/);
    });
  }

  test("a kind: List of policies stands for its items; an invalid item is named by its place in the List", async () => {
    const item = (name: string, field = "validate") =>
      JSON.stringify({
        apiVersion: "kyverno.io/v1",
        kind: "ClusterPolicy",
        metadata: { name },
        spec: {
          rules: [
            {
              name: "r",
              match: { any: [{ resources: { kinds: ["Pod"] } }] },
              [field]: { pattern: { metadata: { name: "?*" } } },
            },
          ],
        },
      });
    const ok = await apply(`{"apiVersion": "v1", "kind": "List", "items": [${item("a")}, ${item("b")}]}`);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /pass: 2/);
    const bad = await apply(`{"apiVersion": "v1", "kind": "List", "items": [${item("a")}, ${item("b", "validat")}]}`);
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /p\.yaml: document 1 \(line 1\), List item 2: invalid policy b: spec\.rules\[0\]\.validat: field not declared in schema/,
    );
  });

  test("a kyverno.io PolicyException in a policy path is honoured, as with -e", async () => {
    const exception = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: allow-web, namespace: shop}
spec:
  exceptions: [{policyName: ok, ruleNames: [r]}]
  match: {any: [{resources: {kinds: [Pod], names: [web]}}]}
`;
    const { code, stdout, stderr } = await apply(`${valid}---\n${exception}`);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /skip: 1/);
  });
});
