/** The playground's run, in Node (the same code the browser runs): what each box gives and how bad input is told. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { runPlayground, type PlaygroundOutput } from "./run-playground.js";
import { EXAMPLE } from "./example-inputs.js";

const rows = (out: PlaygroundOutput): string[] =>
  out.resources.flatMap((r) => r.rows.map((x) => `${x.resource} ${x.policy}/${x.rule}=${x.result}`));

const REQUIRE_TEAM = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: Enforce
  rules:
    - name: team
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaceSelector: {matchLabels: {env: prod}}
      context: [{name: wanted, apiCall: {urlPath: /api/v1/namespaces/default/configmaps/teams, jmesPath: data.team}}]
      validate:
        message: "team {{ wanted }} is needed"
        pattern: {metadata: {labels: {team: "?*"}}}
`;

test("the example shows a validate failure, a mutation's patch and an explanation", () => {
  const out = runPlayground(EXAMPLE);
  assert.deepEqual(out.errors, []);
  assert.deepEqual(rows(out), [
    "Pod/shop/web add-team-label/add-team=pass",
    "Pod/shop/web disallow-latest-tag/validate-image-tag=fail",
  ]);
  const [web] = out.resources;
  assert.deepEqual(web?.patch, [{ op: "add", path: "/metadata/labels", value: { team: "unknown" } }]);
  assert.equal((web?.patched.metadata as { labels?: unknown }).labels !== undefined, true);
  assert.match(web?.explanation ?? "", /rule validate-image-tag: fail/);
  assert.match(web?.explanation ?? "", /failed at .*image/);
});

test("resources without a namespace go to default, a List's items each count, and a cluster-scoped kind stays cluster-wide", () => {
  const out = runPlayground({
    policies: EXAMPLE.policies,
    resources: `apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c, image: "nginx:1"}]}}
  - {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
`,
    values: "",
  });
  assert.deepEqual(
    out.resources.map((r) => r.resource),
    ["Pod/default/a", "Namespace/shop"],
  );
});

test("the values file's namespace labels and globalValues reach the rules, as with bylaw apply -f", () => {
  const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: shop}\n";
  const without = runPlayground({ policies: REQUIRE_TEAM, resources: pod, values: "" });
  assert.deepEqual(rows(without), [], "no namespace labels: the namespaceSelector does not select it");
  const values = `apiVersion: cli.kyverno.io/v1alpha1
kind: Value
metadata: {name: values}
globalValues: {wanted: payments}
namespaceSelector:
  - name: shop
    labels: {env: prod}
`;
  const out = runPlayground({ policies: REQUIRE_TEAM, resources: pod, values });
  assert.deepEqual(out.errors, []);
  assert.deepEqual(rows(out), ["Pod/shop/a require-team/team=fail"]);
  assert.match(out.resources[0]?.rows[0]?.message ?? "", /team payments is needed/);
});

test("a generate rule's object is shown", () => {
  const out = runPlayground({
    policies: `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: default-quota}
spec:
  rules:
    - name: quota
      match: {any: [{resources: {kinds: [Namespace]}}]}
      generate:
        apiVersion: v1
        kind: ResourceQuota
        name: default
        namespace: "{{ request.object.metadata.name }}"
        data: {spec: {hard: {pods: "10"}}}
`,
    resources: "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n",
    values: "",
  });
  assert.deepEqual(out.errors, []);
  const generated = out.resources[0]?.generated[0];
  assert.equal(generated?.kind, "ResourceQuota");
  assert.deepEqual(generated?.metadata, {
    name: "default",
    namespace: "team-a",
    labels: (generated?.metadata as { labels: unknown }).labels,
  });
  assert.deepEqual((generated?.spec as { hard: unknown }).hard, { pods: "10" });
});

test("a PolicyException among the policies is honoured", () => {
  const out = runPlayground({
    policies: `${EXAMPLE.policies}---
apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: web-may, namespace: shop}
spec:
  exceptions: [{policyName: disallow-latest-tag, ruleNames: [validate-image-tag]}]
  match: {any: [{resources: {kinds: [Pod], names: [web]}}]}
`,
    resources: EXAMPLE.resources,
    values: "",
  });
  assert.deepEqual(out.errors, []);
  assert.ok(rows(out).includes("Pod/shop/web disallow-latest-tag/validate-image-tag=skip"), rows(out).join("\n"));
});

test("what the playground cannot read (a ConfigMap from a cluster) is an error result naming the entry, never a pass", () => {
  const out = runPlayground({
    policies: `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: from-configmap}
spec:
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: settings
          configMap: {name: settings, namespace: kyverno}
      validate:
        message: m
        deny: {conditions: {any: [{key: "{{ settings.data.block }}", operator: Equals, value: "yes"}]}}
`,
    resources: EXAMPLE.resources,
    values: "",
  });
  const [row] = out.resources[0]?.rows ?? [];
  assert.equal(row?.result, "error");
  assert.match(row?.message ?? "", /settings/);
});

test("bad input stops the run with errors naming the box, the document and the field", () => {
  const cases: [Partial<typeof EXAMPLE>, RegExp][] = [
    [{ policies: "" }, /^policies: none given/],
    [{ resources: "" }, /^resources: none given/],
    [{ resources: "kind: Pod\nmetadata: {name: [\n" }, /resources.*document 1/],
    [{ resources: "- just\n- a list\n" }, /resources: document 1: not a Kubernetes object/],
    [
      {
        policies:
          "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n  rules:\n    - name: r\n      matchh: {}\n",
      },
      /policies.*matchh/,
    ],
    [{ values: "a: 1\n---\nb: 2\n" }, /values: give one values file/],
  ];
  for (const [given, want] of cases) {
    const out = runPlayground({ ...EXAMPLE, ...given });
    assert.ok(
      out.errors.some((e) => want.test(e)),
      `${want}: ${out.errors.join("; ")}`,
    );
    assert.deepEqual(out.resources, [], "nothing runs on bad input");
  }
});
