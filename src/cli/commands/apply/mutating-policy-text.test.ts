/**
 * `bylaw apply`'s text where kyverno apply (v1.19.0) counts and prints MutatingPolicies and --json
 * payloads its own way. Each expected stdout is kyverno apply's own, byte for byte, on the same files.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runInTree } from "../../../../test/support/cli-run.js";

/** add-label matches Pods (one plain resource rule, so an autogen copy for pod controllers: two rules, apps and batch); add-anno Pods and ConfigMaps (two resources in its rule: no autogen). */
const twoMutatingPolicies = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: add-label
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"team": "a"}}}
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: add-anno
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods, configmaps]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{annotations: {"x": "y"}}}
`;
const podConfigMapSecret = `apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: default
spec:
  containers:
  - name: c
    image: nginx
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  namespace: default
data:
  a: b
---
apiVersion: v1
kind: Secret
metadata:
  name: s
  namespace: default
`;
/** kyverno apply's stdout on them. */
const KYVERNO_TWO_POLICIES = `
Applying 2 policy rule(s) to 3 resource(s)...

policy add-label applied to default/Pod/p1:
apiVersion: v1
kind: Pod
metadata:
    annotations:
        x: "y"
    labels:
        team: a
    name: p1
    namespace: default
spec:
    containers:
        - image: nginx
          name: c

---


Mutation:
Mutation has been applied successfully.
policy add-label applied to default/Pod/p1:
apiVersion: v1
kind: Pod
metadata:
    annotations:
        x: "y"
    labels:
        team: a
    name: p1
    namespace: default
spec:
    containers:
        - image: nginx
          name: c

---


Mutation:
Mutation has been applied successfully.
policy add-anno applied to default/Pod/p1:
apiVersion: v1
kind: Pod
metadata:
    annotations:
        x: "y"
    labels:
        team: a
    name: p1
    namespace: default
spec:
    containers:
        - image: nginx
          name: c

---


Mutation:
Mutation has been applied successfully.
policy add-label applied to default/ConfigMap/cm:
apiVersion: v1
data:
    a: b
kind: ConfigMap
metadata:
    annotations:
        x: "y"
    name: cm
    namespace: default

---


Mutation:
Mutation has been applied successfully.
policy add-anno applied to default/ConfigMap/cm:
apiVersion: v1
data:
    a: b
kind: ConfigMap
metadata:
    annotations:
        x: "y"
    name: cm
    namespace: default

---


Mutation:
Mutation has been applied successfully.
policy add-label applied to default/Secret/s:
apiVersion: v1
kind: Secret
metadata:
    name: s
    namespace: default

---


Mutation:
Mutation has been applied successfully.
pass: 6, fail: 0, warn: 0, error: 0, skip: 0 
`;

const mutateExisting = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: label-cms
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [secrets]
  evaluation:
    mutateExisting:
      enabled: true
  targetMatchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [configmaps]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"touched": "yes"}}}
`;
const trigger = `apiVersion: v1
kind: Secret
metadata:
  name: s
  namespace: default
`;
const targets = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm1
  namespace: default
data: {a: b}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm2
  namespace: default
data: {a: c}
`;
/** kyverno apply's stdout: the trigger's result counted twice, the targets' not at all and not printed. */
const KYVERNO_TARGETS = `
Applying 1 policy rule(s) to 1 resource(s)...

policy label-cms applied to default/Secret/s:
apiVersion: v1
kind: Secret
metadata:
    labels:
        touched: "yes"
    name: s
    namespace: default

---


Mutation:
Mutation has been applied successfully.
pass: 2, fail: 0, warn: 0, error: 0, skip: 0 
`;

const mutateAndJson = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-label
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            a: b
---
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: json-check
spec:
  evaluation:
    mode: JSON
  validations:
  - expression: "object.x == 1"
    message: x must be 1
`;
const payload = `{"x": 2}
`;
/** kyverno apply's stdout: the ClusterPolicy's mutate run on the payload as on an empty object, under "//". */
const KYVERNO_JSON_PAYLOAD = `
Applying 4 policy rule(s) to 1 resource(s)...

policy add-label applied to //:
{}

---


Mutation:
Mutation has been applied successfully.policy json-check -> resource JSON payload failed:
1 -  x must be 1

pass: 0, fail: 1, warn: 0, error: 0, skip: 0 
`;

describe("bylaw apply: kyverno apply's text for MutatingPolicies and --json payloads", () => {
  test("a MutatingPolicy's resource is printed once per body that matched or is more than a plain resource rule; its results count twice", async () => {
    const r = await runInTree("apply", ["$DIR/p.yaml", "-r", "$DIR/r.yaml"], {
      "p.yaml": twoMutatingPolicies,
      "r.yaml": podConfigMapSecret,
    });
    assert.equal(r.code, 0, r.err);
    assert.equal(`${r.out}\n`, KYVERNO_TWO_POLICIES);
  });

  test("the totals of a mutate-existing MutatingPolicy: the trigger's result twice, the targets' not at all, and the targets are not printed", async () => {
    const r = await runInTree("apply", ["$DIR/p.yaml", "-r", "$DIR/t.yaml", "--target-resources", "$DIR/g.yaml"], {
      "p.yaml": mutateExisting,
      "t.yaml": trigger,
      "g.yaml": targets,
    });
    assert.equal(r.code, 0, r.err);
    assert.equal(`${r.out}\n`, KYVERNO_TARGETS);
    // Bylaw's own formats still count each result once, targets included.
    const json = await runInTree(
      "apply",
      ["$DIR/p.yaml", "-r", "$DIR/t.yaml", "--target-resources", "$DIR/g.yaml", "--output-format", "json"],
      {
        "p.yaml": mutateExisting,
        "t.yaml": trigger,
        "g.yaml": targets,
      },
    );
    assert.equal((JSON.parse(json.out) as { summary: { pass: number } }).summary.pass, 3);
  });

  test("each --json payload prints every ClusterPolicy with mutate rules as run on an empty object", async () => {
    const r = await runInTree("apply", ["$DIR/p.yaml", "--json", "$DIR/p.json"], {
      "p.yaml": mutateAndJson,
      "p.json": payload,
    });
    assert.equal(r.code, 1, r.err);
    assert.equal(`${r.out}\n`, KYVERNO_JSON_PAYLOAD);
  });
});
