/**
 * Kubernetes ValidatingAdmissionPolicy in `bylaw apply` and `bylaw test`, as Kyverno's CLI runs them:
 * bindings among the policies, no params in apply unless --parameter-resource gives them (Kyverno's
 * apply hands its PolicyProcessor only those ParameterResources), a test's paramResources in test,
 * results named after the policy.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'replicas must be at most ' + params.data.maxReplicas"
`;
const binding = (actions = "[Deny]", notFound = "Deny") => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-binding}
spec:
  policyName: max-replicas
  validationActions: ${actions}
  paramRef: {name: replica-limits, parameterNotFoundAction: ${notFound}}
`;
const deployment = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: default}
spec: {replicas: ${replicas}, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: nginx}]}}}
`;
const limits = `apiVersion: v1
kind: ConfigMap
metadata: {name: replica-limits, namespace: default}
data: {maxReplicas: "5"}
`;
const resources = `${deployment("small", 2)}---\n${deployment("big", 9)}`;

type Out = {
  summary: Record<string, number>;
  results: { policy: string; rule: string; resource: string; result: string; message: string }[];
};

async function apply(
  files: Record<string, string>,
  args: string[],
): Promise<{ code: number; out: Out | undefined; stderr: string }> {
  const dir = tempTree(files);
  const io = recordingIo();
  const code = await main(
    ["apply", ...args.map((a) => (a.endsWith(".yaml") ? join(dir, a) : a)), "--output-format", "json"],
    io,
  );
  const text = io.stdout.join("\n");
  return { code, out: text === "" ? undefined : (JSON.parse(text) as Out), stderr: io.stderr.join("\n") };
}

describe("bylaw apply: ValidatingAdmissionPolicy", () => {
  test("a binding among the policies binds it; results carry the policy's name", async () => {
    const fixed = policy.replace("int(params.data.maxReplicas)", "5").replace("params.data.maxReplicas", "'5'");
    const { code, out } = await apply({ "p.yaml": `${fixed}---\n${binding()}`, "r.yaml": resources }, [
      "p.yaml",
      "-r",
      "r.yaml",
    ]);
    assert.equal(code, 1);
    assert.deepEqual(
      out?.results.map((r) => [r.policy, r.rule, r.resource.split("/").pop(), r.result, r.message]),
      [
        ["max-replicas", "max-replicas", "small", "pass", ""],
        ["max-replicas", "max-replicas", "big", "fail", "replicas must be at most 5"],
      ],
    );
  });

  test("apply hands a binding no params, as Kyverno's apply does: an expression reading params is an error, whatever -r holds", async () => {
    for (const notFound of ["Deny", "Allow"]) {
      const r = await apply(
        {
          "p.yaml": policy,
          "b.yaml": binding("[Deny]", notFound),
          "r.yaml": deployment("small", 2),
          "params.yaml": limits,
        },
        ["p.yaml", "b.yaml", "-r", "r.yaml", "-r", "params.yaml"],
      );
      assert.equal(r.code, 1);
      const small = r.out?.results.find((x) => x.resource.endsWith("/small"));
      assert.equal(small?.result, "error", notFound);
      assert.match(
        small?.message ?? "",
        /^expression 'object\.spec\.replicas <= int\(params\.data\.maxReplicas\)' resulted in error: /,
      );
    }
  });

  test("a binding without Deny makes the failure Audit: --audit-warn turns it into a warning", async () => {
    const fixed = policy.replace("int(params.data.maxReplicas)", "5").replace("params.data.maxReplicas", "'5'");
    const { code, out } = await apply(
      { "p.yaml": `${fixed}---\n${binding("[Warn, Audit]")}`, "r.yaml": deployment("big", 9) },
      ["p.yaml", "-r", "r.yaml", "--audit-warn"],
    );
    assert.equal(code, 0);
    assert.deepEqual(
      out?.results.map((r) => r.result),
      ["warn"],
    );
  });

  test("a binding the schema refuses fails the run naming its file and field; a binding naming no loaded policy is a warning", async () => {
    // Deny with Warn loads, as in Kyverno's CLI (its loader checks the schema only); an action outside the enum does not.
    const bad = await apply(
      { "p.yaml": policy, "b.yaml": binding("[Deny, Reject]"), "r.yaml": deployment("small", 2) },
      ["p.yaml", "b.yaml", "-r", "r.yaml"],
    );
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /b\.yaml: document 1 \(line 1\): invalid ValidatingAdmissionPolicyBinding max-replicas-binding: .*spec\.validationActions\[1\].*Unsupported value: "Reject"/,
    );
    const lenient = await apply(
      { "p.yaml": policy, "b.yaml": binding("[Deny, Warn]"), "r.yaml": deployment("small", 2) },
      ["p.yaml", "b.yaml", "-r", "r.yaml"],
    );
    assert.notEqual(lenient.code, 2, lenient.stderr);
    const stray = await apply(
      {
        "p.yaml": policy.replace("name: max-replicas", "name: other"),
        "b.yaml": binding(),
        "r.yaml": deployment("small", 2),
      },
      ["p.yaml", "b.yaml", "-r", "r.yaml"],
    );
    assert.match(
      stray.stderr,
      /ValidatingAdmissionPolicyBinding max-replicas-binding names ValidatingAdmissionPolicy max-replicas, which is not among the policies; it binds nothing here/,
    );
    const nameless = await apply(
      {
        "p.yaml": policy,
        "b.yaml": binding().replace("policyName: max-replicas", "policyName: ''"),
        "r.yaml": deployment("small", 2),
      },
      ["p.yaml", "b.yaml", "-r", "r.yaml"],
    );
    assert.match(
      nameless.stderr,
      /ValidatingAdmissionPolicyBinding max-replicas-binding has no spec\.policyName; it binds nothing/,
    );
  });
});

describe("bylaw test: ValidatingAdmissionPolicy", () => {
  const suite = (results: string, extra = ""): Record<string, string> => ({
    "policy.yaml": `${policy}---\n${binding()}`,
    "resources.yaml": resources,
    "params.yaml": limits,
    "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: vap}
policies: [policy.yaml]
resources: [resources.yaml]
paramResources: [params.yaml]
${extra}results:
${results}`,
  });

  async function test_(
    files: Record<string, string>,
  ): Promise<{ code: number; rows: { result: string; reason: string; actual: string | null }[]; stdout: string }> {
    const dir = tempTree(files);
    const io = recordingIo();
    const code = await main(["test", dir, "-o", "bylaw-json"], io);
    const stdout = io.stdout.join("\n");
    const parsed = JSON.parse(stdout) as {
      suites?: { results: { result: string; reason: string; actual: string | null }[] }[];
    };
    return { code, rows: (parsed.suites ?? []).flatMap((s) => s.results), stdout };
  }

  test("paramResources are the params; a row's rule is ignored, as Kyverno ignores it for this kind", async () => {
    const { code, rows } = await test_(
      suite(`- {policy: max-replicas, resources: [small], result: pass, isValidatingAdmissionPolicy: true}
- {policy: max-replicas, rule: anything, resources: [big], result: fail}
`),
    );
    assert.equal(code, 0, JSON.stringify(rows));
    assert.deepEqual(
      rows.map((r) => r.actual),
      ["pass", "fail"],
    );
  });

  // Kyverno 1.19 commands/test runs with `Cluster: len(ClusterResources) > 0`: pkg/admissionpolicy processVAPWithClient, CollectParams.
  test("with clusterResources, params are read in the resource's namespace, as Kyverno's cluster path reads them", async () => {
    const rows = "- {policy: max-replicas, resources: [small], result: RESULT}\n";
    const elsewhere = limits.replace("namespace: default", "namespace: elsewhere").replace('"5"', '"1"');
    const cluster = `apiVersion: cli.kyverno.io/v1alpha1\nkind: ClusterResource\nmetadata: {name: c}\nspec: {resources: [{apiVersion: v1, kind: Namespace, metadata: {name: default}}]}\n`;
    // Offline, the first object named replica-limits is taken, whatever its namespace (max 1: small fails).
    const offline = { ...suite(rows.replace("RESULT", "fail")), "params.yaml": `${elsewhere}---\n${limits}` };
    const a = await test_(offline);
    assert.deepEqual([a.code, a.rows.map((r) => r.actual)], [0, ["fail"]]);
    const withCluster = {
      ...suite(rows.replace("RESULT", "pass"), "clusterResources: [cluster.yaml]\n"),
      "params.yaml": `${elsewhere}---\n${limits}`,
      "cluster.yaml": cluster,
    };
    const b = await test_(withCluster);
    assert.deepEqual([b.code, b.rows.map((r) => r.actual)], [0, ["pass"]]);
    // Kyverno's fake cluster holds the test's resources too: a param among them is read.
    const c = await test_({ ...withCluster, "params.yaml": elsewhere, "resources.yaml": `${resources}---\n${limits}` });
    assert.deepEqual([c.code, c.rows.map((r) => r.actual)], [0, ["pass"]]);
    // The resource's Namespace nowhere among the cluster objects: the row is an error, never a pass.
    const empty =
      "apiVersion: cli.kyverno.io/v1alpha1\nkind: ClusterResource\nmetadata: {name: c}\nspec: {resources: []}\n";
    const nowhere = await test_({ ...withCluster, "cluster.yaml": empty });
    assert.deepEqual(
      nowhere.rows.map((r) => r.actual),
      ["error"],
    );
  });

  test("exceptions with a ValidatingAdmissionPolicy refuse the suite, as Kyverno's CLI does", async () => {
    const files = suite(
      "- {policy: max-replicas, resources: [small], result: pass}\n",
      "exceptions: [exception.yaml]\n",
    );
    files["exception.yaml"] = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: e, namespace: default}
spec:
  exceptions: [{policyName: other, ruleNames: [r]}]
  match: {any: [{resources: {kinds: [Pod]}}]}
`;
    const { code, stdout } = await test_(files);
    assert.equal(code, 1);
    assert.match(stdout, /use of exceptions with ValidatingAdmissionPolicies is not supported/);
  });

  test("without paramResources the binding finds no params: params is null, so reading it is an error, never a pass", async () => {
    const files = suite("- {policy: max-replicas, resources: [small], result: pass}\n");
    files["kyverno-test.yaml"] = files["kyverno-test.yaml"]?.replace("paramResources: [params.yaml]\n", "") ?? "";
    const { code, rows } = await test_(files);
    assert.equal(code, 1);
    assert.deepEqual(
      rows.map((r) => r.actual),
      ["error"],
    );
  });
});

describe("bylaw apply --parameter-resource (kyverno apply's flag)", () => {
  test("the given objects are the bindings' params: the policy reads them", async () => {
    const { code, out } = await apply(
      { "p.yaml": `${policy}---\n${binding()}`, "r.yaml": resources, "params.yaml": limits },
      ["p.yaml", "-r", "r.yaml", "--parameter-resource", "params.yaml"],
    );
    assert.equal(code, 1);
    assert.deepEqual(
      out?.results.map((r) => [r.resource.split("/").pop(), r.result, r.message]),
      [
        ["small", "pass", ""],
        ["big", "fail", "replicas must be at most 5"],
      ],
    );
  });

  test("a file Bylaw cannot read is exit 2 naming the flag; with --cluster the flag is refused", async () => {
    const missing = await apply({ "p.yaml": `${policy}---\n${binding()}`, "r.yaml": resources }, [
      "p.yaml",
      "-r",
      "r.yaml",
      "--parameter-resource",
      "none.yaml",
    ]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--parameter-resource: .*none\.yaml/);
    const cluster = await apply({ "p.yaml": policy, "params.yaml": limits }, [
      "p.yaml",
      "--cluster",
      "--parameter-resource",
      "params.yaml",
    ]);
    assert.equal(cluster.code, 2);
    assert.match(cluster.stderr, /--parameter-resource is for offline runs/);
  });
});
