/**
 * `bylaw apply --context-file PATH` (kyverno apply's flag): a cli.kyverno.io/v1alpha1 Context file's
 * objects answer CEL resource.Get/List and its images image.GetMetadata, as a test file's `context`
 * does. A file Bylaw cannot read is exit 2 naming the flag; with --cluster the flag is refused (the
 * cluster answers those reads).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runInTree } from "../../../../test/support/cli-run.js";

const policy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: strict-mode}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
    - expression: "resource.Get('v1', 'configmaps', 'platform', 'settings').data.mode == 'strict'"
      message: the platform is not in strict mode
`;
const context = (mode: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Context
metadata: {name: context}
spec:
  resources:
    - {apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: platform}, data: {mode: ${mode}}}
`;
const pod = `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: c, image: web:1}]}\n`;

const apply = (args: string[], files: Record<string, string>) => runInTree("apply", args, files);

describe("bylaw apply --context-file", () => {
  test("the Context file's objects answer resource.Get", async () => {
    const files = { "p.yaml": policy, "pod.yaml": pod, "strict.yaml": context("strict"), "lax.yaml": context("lax") };
    const strict = await apply(["$DIR/p.yaml", "-r", "$DIR/pod.yaml", "--context-file", "$DIR/strict.yaml"], files);
    assert.equal(strict.code, 0, strict.err);
    assert.match(strict.out, /pass: 1, fail: 0, warn: 0, error: 0, skip: 0/);
    const lax = await apply(["$DIR/p.yaml", "-r", "$DIR/pod.yaml", "--context-file", "$DIR/lax.yaml"], files);
    assert.equal(lax.code, 1);
    assert.match(lax.out, /the platform is not in strict mode/);
  });

  test("a file that is not a Context is exit 2 naming the flag and the kind", async () => {
    const { code, err } = await apply(["$DIR/p.yaml", "-r", "$DIR/pod.yaml", "--context-file", "$DIR/pod.yaml"], {
      "p.yaml": policy,
      "pod.yaml": pod,
    });
    assert.equal(code, 2);
    assert.match(err, /--context-file: context: .*pod\.yaml: expected kind Context, got "Pod"/);
  });

  test("with --cluster it is refused by name", async () => {
    const { code, err } = await apply(["$DIR/p.yaml", "--cluster", "--context-file", "$DIR/c.yaml"], {
      "p.yaml": policy,
      "c.yaml": context("strict"),
    });
    assert.equal(code, 2);
    assert.match(err, /--context-file is for offline runs/);
  });
});
