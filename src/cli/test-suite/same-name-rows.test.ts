/**
 * As Kyverno's test (commands/test/output.go), a results entry naming `x` checks every resource named
 * `x` its policy answered for, whatever the entry's `kind`: a Role and a ClusterRole both named `x`
 * are a row each, and the entry fails when either disagrees with it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuites } from "./run-suite.js";

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-secret-reads}
spec:
  rules:
    - name: secrets
      match: {any: [{resources: {kinds: [Role, ClusterRole]}}]}
      validate:
        message: no secrets
        deny: {conditions: {any: [{key: secrets, operator: AnyIn, value: "{{ request.object.rules[].resources[] }}"}]}}
`;
const roles = (roleReads: string) => `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [secrets], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [${roleReads}], verbs: [get]}]
`;
const suite = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: same-name}
policies: [policy.yaml]
resources: [roles.yaml]
results:
- {policy: no-secret-reads, rule: secrets, kind: ClusterRole, resources: [reader], result: fail}
`;

async function rowsFor(roleReads: string) {
  const dir = tempTree({ "policy.yaml": policy, "roles.yaml": roles(roleReads), "kyverno-test.yaml": suite });
  const [s] = await runSuites(join(dir, "kyverno-test.yaml"), offlineEngine);
  return s?.results ?? [];
}

test("an entry's name stands for the Role and the ClusterRole of that name: a row each, one check", async () => {
  const rows = await rowsFor("secrets");
  assert.deepEqual(
    rows.map((r) => [r.subject, r.ok, r.reason, r.sameCheck ?? false]),
    [
      ["rbac.authorization.k8s.io/v1/ClusterRole//reader", true, "Ok", false],
      ["rbac.authorization.k8s.io/v1/Role/default/reader", true, "Ok", true],
    ],
  );
  assert.equal(new Set(rows.map((r) => r.id)).size, 1, "both rows are the entry's one check");
});

test("the entry's kind does not hide a same-named resource that disagrees with it", async () => {
  const rows = await rowsFor("configmaps");
  assert.deepEqual(
    rows.map((r) => [r.subject, r.ok, r.reason]),
    [
      ["rbac.authorization.k8s.io/v1/ClusterRole//reader", true, "Ok"],
      ["rbac.authorization.k8s.io/v1/Role/default/reader", false, "Want fail, got pass"],
    ],
  );
});
