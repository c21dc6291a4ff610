/**
 * `bylaw apply --crd-paths`: a CustomResourceDefinition tells the offline run what a custom kind's
 * API resource is, so matchConstraints.resourceRules that name it (`widgets`) decide; without it a
 * rule naming the kind's guessed plural decides (as Kyverno's CLI guesses), another is an error
 * naming the kind, never a pass. Bad CRD input exits 2 naming the file.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runInTree } from "../../../../test/support/cli-run.js";

const crd = (plural = "widgets") => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: ${plural}, singular: widget, listKind: WidgetList}
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
const vpol = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: small-widgets}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}]
  validations:
    - expression: "object.spec.size <= 3"
      message: widgets are at most 3
`;
const vap = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: named-widgets}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}]
  validations:
    - expression: "object.metadata.name.startsWith('w-')"
      message: widget names start with w-
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: named-widgets}
spec: {policyName: named-widgets, validationActions: [Deny]}
`;
const widgets = `apiVersion: example.com/v1
kind: Widget
metadata: {name: w-small, namespace: shop}
spec: {size: 1}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: big, namespace: shop}
spec: {size: 5}
`;

const apply = (args: string[], files: Record<string, string>) =>
  runInTree("apply", [...args, "--output-format", "json"], files);

function rows(out: string): string[][] {
  return (
    JSON.parse(out) as { results: { policy: string; resource: string; result: string; message: string }[] }
  ).results.map((r) => [r.policy, r.resource, r.result, r.message]);
}

describe("bylaw apply --crd-paths", () => {
  test("without the CRD a rule naming the kind's guessed plural decides, as Kyverno's CLI guesses it (Widget: widgets)", async () => {
    const { code, out } = await apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml"], { "p.yaml": vpol, "w.yaml": widgets });
    assert.equal(code, 1);
    assert.deepEqual(rows(out), [
      ["small-widgets", "Widget/shop/w-small", "pass", "success"],
      ["small-widgets", "Widget/shop/big", "fail", "widgets are at most 3"],
    ]);
  });

  test("without the CRD a rule naming another plural (an irregular one the guess misses) is an error naming the kind and the flag", async () => {
    const mice = vpol.replace("resources: [widgets]", "resources: [mice]");
    const mouse = "apiVersion: example.com/v1\nkind: Mouse\nmetadata: {name: m, namespace: shop}\nspec: {size: 1}\n";
    const { code, out } = await apply(["$DIR/p.yaml", "-r", "$DIR/m.yaml"], { "p.yaml": mice, "m.yaml": mouse });
    assert.equal(code, 1);
    const [row, ...rest] = rows(out);
    assert.deepEqual(rest, []);
    assert.equal(row?.[2], "error");
    assert.match(row?.[3] ?? "", /kind Mouse \(example\.com\/v1\) is not a built-in kind .*--crd-paths/);
  });

  test("without the CRD a MutatingPolicy's ApplyConfiguration on the custom kind is an error, as Kyverno's CLI has no type converter for it", async () => {
    const mpol = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: widget-label}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'}
`;
    const { out } = await apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml"], {
      "p.yaml": mpol,
      "w.yaml": widgets.split("---")[0] ?? "",
    });
    const [row] = rows(out);
    assert.equal(row?.[2], "error");
    assert.match(
      row?.[3] ?? "",
      /^failed to evaluate policy: error applying patch: type converter must not be nil: kind Widget \(example\.com\/v1\) has no schema offline/,
    );
  });

  test("with the CRD (a file or its folder) the ValidatingPolicy and the ValidatingAdmissionPolicy decide on each widget", async () => {
    for (const crdArg of ["$DIR/crds/widget.yaml", "$DIR/crds"]) {
      const { code, out, err } = await apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml", "--crd-paths", crdArg], {
        "p.yaml": `${vpol}---\n${vap}`,
        "w.yaml": widgets,
        "crds/widget.yaml": crd(),
      });
      assert.equal(code, 1, err);
      // Per widget, the ValidatingAdmissionPolicy's row comes last: Kyverno's CLI evaluates it in its
      // stage (before the ValidatingPolicy's) and appends its response after all the others.
      assert.deepEqual(rows(out), [
        ["small-widgets", "Widget/shop/w-small", "pass", "success"],
        ["named-widgets", "Widget/shop/w-small", "pass", ""],
        ["small-widgets", "Widget/shop/big", "fail", "widgets are at most 3"],
        ["named-widgets", "Widget/shop/big", "fail", "widget names start with w-"],
      ]);
    }
  });

  test("a MutatingPolicy's ApplyConfiguration on a custom resource is typed with its CRD's schema, as Kyverno's CLI types it", async () => {
    const strict = crd().replace(
      "schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}",
      "schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}",
    );
    const mpol = (expression: string) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: widget-patch}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: '${expression}'}
`;
    const run = (expression: string) =>
      apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml", "--crd-paths", "$DIR/crd.yaml"], {
        "p.yaml": mpol(expression),
        "w.yaml": widgets.split("---")[0] ?? "",
        "crd.yaml": strict,
      });
    const declared = await run('Object{spec: Object.spec{size: 2}, metadata: Object.metadata{labels: {"a": "b"}}}');
    assert.deepEqual(rows(declared.out), [["widget-patch", "Widget/shop/w-small", "pass", "success"]]);
    for (const [expression, field] of [
      ['Object{spec: Object.spec{color: "red"}}', ".spec.color"],
      ['Object{metadata: Object.metadata{foo: "b"}}', ".metadata.foo"],
    ] as const) {
      const undeclared = await run(expression);
      const [row] = rows(undeclared.out);
      assert.equal(row?.[2], "error", expression);
      assert.equal(
        row?.[3],
        `failed to evaluate policy: error applying patch: failed to convert patch object to typed object: ${field}: field not declared in schema`,
      );
    }
  });

  test("the CRD's plural is what the rule must name: a CRD with another plural matches nothing", async () => {
    const { code, out } = await apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml", "--crd-paths", "$DIR/crd.yaml"], {
      "p.yaml": vpol,
      "w.yaml": widgets,
      "crd.yaml": crd("gadgets"),
    });
    assert.equal(code, 0, out);
    assert.deepEqual(rows(out), []);
  });

  test("a document that is not a CRD, or a CRD without its plural, is an error naming the file and document (exit 2)", async () => {
    const notCrd = await apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml", "--crd-paths", "$DIR/crd.yaml"], {
      "p.yaml": vpol,
      "w.yaml": widgets,
      "crd.yaml": `${crd()}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n`,
    });
    assert.equal(notCrd.code, 2);
    assert.match(
      notCrd.err,
      /error: --crd-paths: .*crd\.yaml: document 2: not an apiextensions\.k8s\.io\/v1 CustomResourceDefinition \(got v1 ConfigMap\)/,
    );
    const noPlural = await apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml", "--crd-paths", "$DIR/crd.yaml"], {
      "p.yaml": vpol,
      "w.yaml": widgets,
      "crd.yaml": crd().replace(", plural: widgets", ""),
    });
    assert.equal(noPlural.code, 2);
    assert.match(
      noPlural.err,
      /document 1: CustomResourceDefinition widgets\.example\.com: missing spec\.names\.plural/,
    );
    const missing = await apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml", "--crd-paths", "$DIR/nope.yaml"], {
      "p.yaml": vpol,
      "w.yaml": widgets,
    });
    assert.equal(missing.code, 2);
    assert.match(missing.err, /--crd-paths: .*nope\.yaml/);
  });

  test("--crd-paths is a list as in Kyverno: a comma list, empty entries skipped; --crd-path is its deprecated spelling", async () => {
    const files = {
      "p.yaml": vpol,
      "w.yaml": widgets,
      "a/gadget.yaml": crd("gadgets").replace("kind: Widget", "kind: Gadget"),
      "b/widget.yaml": crd(),
    };
    const listed = await apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml", "--crd-paths", "$DIR/a,,$DIR/b"], files);
    assert.equal(listed.code, 1, listed.err);
    assert.deepEqual(
      rows(listed.out).map((r) => r[2]),
      ["pass", "fail"],
    );
    const old = await apply(["$DIR/p.yaml", "-r", "$DIR/w.yaml", "--crd-path", "$DIR/b/widget.yaml"], files);
    assert.equal(old.code, 1, old.err);
    assert.match(old.err, /Flag --crd-path has been deprecated, use --crd-paths instead/);
    assert.deepEqual(
      rows(old.out).map((r) => r[2]),
      ["pass", "fail"],
    );
  });

  test("--crd-paths with --kubeconfig is refused, as Kyverno refuses it (exit 2)", async () => {
    const r = await apply(["$DIR/p.yaml", "--cluster", "--kubeconfig", "$DIR/k.yaml", "--crd-paths", "$DIR/crd.yaml"], {
      "p.yaml": vpol,
      "crd.yaml": crd(),
      "k.yaml": "",
    });
    assert.equal(r.code, 2);
    assert.match(r.err, /crd-paths and kubeconfig flags are mutually exclusive, please use only one of them/);
  });
});
