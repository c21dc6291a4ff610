/**
 * `bylaw apply` runs a resource's policies in Kyverno's CLI stages (kinds/types.ts CliStages), not
 * in policy order, and prints a resource's MutatingPolicies as Kyverno's one mpol batch: the batch's
 * final object under each one's header (processor/policy_processor.go, read beside kyverno v1.19.0).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const labelPolicy = (name: string, key: string, value: string) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "Object{metadata: Object.metadata{labels: {'${key}': '${value}'}}}"
`;

const requireTeamClassic = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: Audit
  rules:
    - name: check-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate: {message: "Pods need a team label.", pattern: {metadata: {labels: {team: "?*"}}}}
`;

const requireTeamCel = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: require-team-cel}
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
    - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
      message: Pods need a team label.
`;

const pod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
`;

async function apply(policies: string[]): Promise<string> {
  const dir = tempTree({ "p.yaml": policies.join("---\n"), "r.yaml": pod });
  const io = recordingIo();
  await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], io);
  return io.stdout.join("\n");
}

describe("bylaw apply: Kyverno's CLI stages on one resource", () => {
  test("a kyverno.io validate rule sees no MutatingPolicy's patch, a ValidatingPolicy sees it, whatever the policy order", async () => {
    const out = await apply([labelPolicy("add-team", "team", "alpha"), requireTeamClassic, requireTeamCel]);
    assert.match(
      out,
      /policy require-team -> resource shop\/Pod\/web failed:\n1 - check-team validation error: Pods need a team label\./,
    );
    assert.doesNotMatch(out, /require-team-cel -> resource/);
    assert.match(out, /pass: 2, fail: 1, warn: 0, error: 0, skip: 0 $/);
    // The mutation still comes out on the resource.
    assert.match(
      out,
      /policy add-team applied to shop\/Pod\/web:\napiVersion: v1\nkind: Pod\nmetadata:\n {2}labels:\n {4}team: alpha\n/,
    );
  });

  test("two MutatingPolicies on one resource: the batch's final object under each one's header", async () => {
    const out = await apply([labelPolicy("add-a", "a", "one"), labelPolicy("add-b", "b", "two")]);
    const final = "apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n    a: one\n    b: two\n  name: web\n";
    assert.ok(out.includes(`policy add-a applied to shop/Pod/web:\n${final}`), out);
    assert.ok(out.includes(`policy add-b applied to shop/Pod/web:\n${final}`), out);
  });
});
