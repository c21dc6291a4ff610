/**
 * JSON payloads through the CLI entry: `bylaw apply --json PATH` and a test file's `jsonPayloads`
 * (and deprecated `jsonPayload`). Only ValidatingPolicies with evaluation.mode JSON run on them;
 * Kubernetes-mode policies never do. As Kyverno 1.19's CLI (its PolicyProcessor, shared by apply and
 * test), `bylaw apply` and `bylaw test` also run the JSON-mode policies on each resource taken as a
 * raw payload.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const jsonPolicy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: private-buckets}
spec:
  evaluation: {mode: JSON}
  validations:
    - expression: "object.resource_changes.filter(r, r.type == 'aws_s3_bucket').all(b, b.change.after.?acl.orValue('private') == 'private')"
      message: S3 buckets must be private
`;
/** A ValidatingPolicy in JSON mode with the given `validations:` YAML (the text after the key). */
const jsonModePolicy = (name: string, validations: string): string => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: ${name}}
spec:
  evaluation: {mode: JSON}
  validations:${validations}
`;
const podPolicy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: pods-labelled}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]
  validations: [{expression: "has(object.metadata.labels)", message: labels are required}]
`;
const publicPlan = JSON.stringify({
  resource_changes: [{ type: "aws_s3_bucket", change: { after: { acl: "public-read" } } }],
});
const privatePlan = JSON.stringify({ resource_changes: [{ type: "aws_s3_bucket", change: { after: {} } }] });
const pod = `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: c, image: web:1}]}\n`;

async function cli(args: string[], files: Record<string, string>) {
  const dir = tempTree(files);
  const io = recordingIo("");
  const code = await main(
    args.map((a) => a.replaceAll("$DIR", dir)),
    io,
  );
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n"), dir };
}

function rows(out: string): string[][] {
  return (
    JSON.parse(out) as { results: { policy: string; resource: string; result: string; message: string }[] }
  ).results.map((r) => [r.policy, r.resource, r.result, r.message]);
}

describe("bylaw apply --json", () => {
  test("a JSON-mode policy runs on each payload and on each -r resource as a raw payload; a Kubernetes-mode one only on resources", async () => {
    const { code, out } = await cli(
      [
        "apply",
        "$DIR/p.yaml",
        "--json",
        "$DIR/public.json",
        "--json",
        "$DIR/private.json",
        "-r",
        "$DIR/pod.yaml",
        "--output-format",
        "json",
      ],
      {
        "p.yaml": `${jsonPolicy}---\n${podPolicy}`,
        "public.json": publicPlan,
        "private.json": privatePlan,
        "pod.yaml": pod,
      },
    );
    assert.equal(code, 1);
    const got = rows(out).map((r) => [r[0], r[1]?.replace(/\/tmp\/[^ :]*\//, ""), r[2], r[3]]);
    assert.deepEqual(got, [
      ["pods-labelled", "Pod/shop/web", "fail", "labels are required"],
      // The pod has no resource_changes: an evaluation error, never a pass.
      ["private-buckets", "Pod/shop/web", "error", "error: no such key: resource_changes"],
      ["private-buckets", "JSON public.json:1", "fail", "S3 buckets must be private"],
      ["private-buckets", "JSON private.json:1", "pass", "success"],
    ]);
  });

  test("on a -r resource, `object` is the whole manifest (after mutation) and matchConstraints do not apply", async () => {
    const labelled = jsonModePolicy(
      "owner-label",
      `
    - expression: "object.kind != 'Pod' || object.metadata.?labels.?owner.hasValue()"
      messageExpression: "'pod ' + object.metadata.name + ' has no owner'"`,
    );
    const addOwner = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-owner}
spec:
  rules:
    - name: owner
      match: {any: [{resources: {kinds: [Pod], names: [fixed]}}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {owner: platform}}}}
`;
    const pods = `${pod}---\napiVersion: v1\nkind: Pod\nmetadata: {name: fixed, namespace: shop}\nspec: {containers: [{name: c, image: web:1}]}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\n`;
    const { code, out } = await cli(["apply", "$DIR/p.yaml", "-r", "$DIR/pods.yaml", "--output-format", "json"], {
      "p.yaml": `${labelled}---\n${addOwner}`,
      "pods.yaml": pods,
    });
    assert.equal(code, 1);
    assert.deepEqual(
      rows(out)
        .filter((r) => r[0] === "owner-label")
        .map((r) => [r[1], r[2], r[3]]),
      [
        ["Pod/shop/web", "fail", "pod web has no owner"],
        ["Pod/shop/fixed", "pass", "success"],
        ["ConfigMap/shop/cfg", "pass", "success"],
      ],
    );
  });

  test("--json alone (no -r) is enough; a payload that is not an object exits 2 naming the file and document", async () => {
    assert.equal(
      (
        await cli(["apply", "$DIR/p.yaml", "--json", "$DIR/private.json"], {
          "p.yaml": jsonPolicy,
          "private.json": privatePlan,
        })
      ).code,
      0,
    );
    const { code, err } = await cli(["apply", "$DIR/p.yaml", "--json", "$DIR/list.json"], {
      "p.yaml": jsonPolicy,
      "list.json": "[1, 2]",
    });
    assert.equal(code, 2);
    assert.match(err, /--json: .*list\.json: document 1: a JSON payload must be an object \(got a list\)/);
  });

  test("a DeletingPolicy says of each payload whether it would delete it, as Kyverno's CLI: 'json matched' or 'json did not match', after the resources", async () => {
    const dpol = `apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata: {name: stale}
spec:
  schedule: "*/5 * * * *"
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [pods]}]
  conditions: [{name: stale, expression: "object.metadata.?labels.stale.orValue('') == 'yes'"}]
`;
    const { code, out } = await cli(
      [
        "apply",
        "$DIR/p.yaml",
        "-r",
        "$DIR/pod.yaml",
        "--json",
        "$DIR/a.json",
        "--json",
        "$DIR/b.json",
        "--output-format",
        "json",
      ],
      {
        "p.yaml": dpol,
        "pod.yaml": pod,
        // Without an apiVersion and a kind a payload is not matched against matchConstraints: the conditions decide.
        "a.json": JSON.stringify({ metadata: { name: "a", labels: { stale: "yes" } } }),
        "b.json": JSON.stringify({ metadata: { name: "b" } }),
      },
    );
    assert.equal(code, 1, out);
    assert.deepEqual(rows(out), [
      ["stale", "Pod/shop/web", "fail", "resource did not match"],
      ["stale", "JSON/a", "pass", "json matched"],
      ["stale", "JSON/b", "fail", "json did not match"],
    ]);
  });
});

describe("bylaw test with jsonPayloads", () => {
  test("jsonPayloads (and the deprecated jsonPayload) are evaluated by JSON-mode policies; rows name no resource", async () => {
    const test = (payloads: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: plans}
policies: [p.yaml]
${payloads}
results:
  - {policy: private-buckets, result: fail, isValidatingPolicy: true}
`;
    for (const payloads of ["jsonPayloads: [public.json]", "jsonPayload: public.json"]) {
      const { code, out } = await cli(["test", "$DIR"], {
        "p.yaml": jsonPolicy,
        "public.json": publicPlan,
        "kyverno-test.yaml": test(payloads),
      });
      assert.equal(code, 0, out);
      assert.match(out, /1 tests passed and 0 tests failed/);
    }
    const { code } = await cli(["test", "$DIR"], {
      "p.yaml": jsonPolicy,
      "private.json": privatePlan,
      "kyverno-test.yaml": test("jsonPayloads: [private.json]"),
    });
    assert.notEqual(code, 0);
  });

  test("a row naming no resource checks each payload, known by its file (as Kyverno's test: one row per payload)", async () => {
    const { out } = await cli(["test", "$DIR", "-o", "bylaw-json"], {
      "p.yaml": jsonPolicy,
      "public.json": publicPlan,
      "private.json": privatePlan,
      "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: plans}
policies: [p.yaml]
jsonPayloads: [private.json, public.json]
results:
  - {policy: private-buckets, result: pass}
`,
    });
    const got = (
      JSON.parse(out) as { suites: { results: { resource: string; actual: string; ok: boolean }[] }[] }
    ).suites
      .flatMap((x) => x.results)
      .map((r) => [r.resource, r.actual, r.ok]);
    assert.deepEqual(got, [
      ["private.json", "pass", true],
      ["public.json", "fail", false],
    ]);
  });

  test("a JSON-mode policy also runs on each of the test's resources as a raw payload, as Kyverno's test does", async () => {
    const labelsAsJson = jsonModePolicy(
      "json-labels",
      ` [{expression: "has(object.metadata.labels)", message: labels are required}]`,
    );
    const labelled = `apiVersion: v1\nkind: Pod\nmetadata: {name: tidy, namespace: shop, labels: {a: b}}\nspec: {containers: [{name: c, image: web:1}]}\n`;
    const { code, out } = await cli(["test", "$DIR", "-o", "bylaw-json"], {
      "p.yaml": labelsAsJson,
      "pod.yaml": `${pod}---\n${labelled}`,
      "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: raw}
policies: [p.yaml]
resources: [pod.yaml]
results:
  - {policy: json-labels, resources: [web], result: fail, isValidatingPolicy: true}
  - {policy: json-labels, resources: [tidy], result: pass, isValidatingPolicy: true}
`,
    });
    const got = (
      JSON.parse(out) as { suites: { results: { resource: string; actual: string; message: string }[] }[] }
    ).suites
      .flatMap((x) => x.results)
      .map((r) => [r.resource, r.actual, r.message]);
    assert.deepEqual(got, [
      ["web", "fail", "labels are required"],
      ["tidy", "pass", "success"],
    ]);
    assert.equal(code, 0, out);
  });
});
