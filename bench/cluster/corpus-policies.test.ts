import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mutatedRuntimeClasses, outsideNetworkReason, writeCorpusPolicies } from "./corpus-policies.js";

const rule = (extra: Record<string, unknown>): unknown => ({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "p" },
  spec: { rules: [{ name: "r", match: {}, ...extra }] },
});

test("context entries and rules that read a registry or an outside service are named; API server reads are not", () => {
  assert.match(
    outsideNetworkReason(rule({ context: [{ name: "img", imageRegistry: { reference: "{{ element.image }}" } }] })) ??
      "",
    /imageRegistry/,
  );
  assert.match(outsideNetworkReason(rule({ verifyImages: [{ imageReferences: ["*"] }] })) ?? "", /verifyImages/);
  assert.match(
    outsideNetworkReason(rule({ context: [{ name: "x", apiCall: { service: { url: "https://svc.ns/check" } } }] })) ??
      "",
    /apiCall\.service/,
  );
  assert.match(
    outsideNetworkReason(rule({ context: [{ name: "g", globalReference: { name: "entry" } }] })) ?? "",
    /globalReference/,
  );
  assert.equal(
    outsideNetworkReason(
      rule({
        context: [
          { name: "n", apiCall: { urlPath: "/api/v1/namespaces/{{request.namespace}}/pods" } },
          { name: "c", configMap: { name: "cm", namespace: "ns" } },
        ],
      }),
    ),
    undefined,
  );
  assert.equal(
    outsideNetworkReason(rule({ validate: { message: "verifyImages in a message is text", pattern: { spec: {} } } })),
    undefined,
  );
});

test("CEL expressions that fetch image metadata or call http are named", () => {
  const vpol = (expression: string): unknown => ({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "v" },
    spec: { validations: [{ expression }] },
  });
  assert.match(
    outsideNetworkReason(vpol("object.spec.containers.all(c, image.GetMetadata(c.image).config.User != '')")) ?? "",
    /image\.GetMetadata/,
  );
  assert.match(outsideNetworkReason(vpol("http.Get('https://example.com').allowed")) ?? "", /http/);
  assert.equal(outsideNetworkReason(vpol("object.spec.containers.all(c, c.image.startsWith('ghcr.io/'))")), undefined);
});

test("a family keeps its own kind, renames a variant sharing a name, and counts what it leaves out", () => {
  const corpus = mkdtempSync(join(tmpdir(), "corpus-"));
  try {
    const suites = ["best-practices/require-labels", "best-practices-cel/require-labels", "other/block-stale-images"];
    writeFileSync(join(corpus, "MANIFEST.tsv"), ["suite_dir", ...suites].join("\n"));
    const doc = (name: string, extra = ""): string =>
      `apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: ${name}\nspec:\n  rules:\n  - name: r\n${extra}`;
    for (const s of suites) mkdirSync(join(corpus, s), { recursive: true });
    writeFileSync(join(corpus, suites[0] ?? "", "p.yaml"), doc("require-labels"));
    writeFileSync(
      join(corpus, suites[1] ?? "", "p.yaml"),
      `${doc("require-labels")}---\napiVersion: policies.kyverno.io/v1alpha1\nkind: MutatingPolicy\nmetadata:\n  name: m\n`,
    );
    writeFileSync(
      join(corpus, suites[2] ?? "", "p.yaml"),
      doc("block-stale-images", "    context:\n    - name: d\n      imageRegistry:\n        reference: x\n"),
    );
    const out = join(corpus, "out");
    const set = writeCorpusPolicies(corpus, out, "cluster-policies");
    assert.deepEqual([...set.written], [["ClusterPolicy", 2]]);
    assert.deepEqual(readdirSync(out).sort(), [
      "ClusterPolicy-require-labels-best-practices-cel.yaml",
      "ClusterPolicy-require-labels.yaml",
    ]);
    assert.deepEqual([...set.leftOut.values()], [["block-stale-images"]]);
    assert.deepEqual([...set.otherKinds], [["MutatingPolicy", 1]]);
    assert.deepEqual([...writeCorpusPolicies(corpus, join(corpus, "v"), "validating-policies").written], []);
  } finally {
    rmSync(corpus, { recursive: true, force: true });
  }
});

test("the RuntimeClasses a mutation sets are found; a variable or a validate pattern is not one", () => {
  assert.deepEqual(
    mutatedRuntimeClasses(rule({ mutate: { patchStrategicMerge: { spec: { runtimeClassName: "prodclass" } } } })),
    ["prodclass"],
  );
  assert.deepEqual(
    mutatedRuntimeClasses(rule({ mutate: { patchStrategicMerge: { spec: { runtimeClassName: "{{ rc }}" } } } })),
    [],
  );
  assert.deepEqual(
    mutatedRuntimeClasses(rule({ validate: { pattern: { spec: { runtimeClassName: "prodclass | expressclass" } } } })),
    [],
  );
});
