/** `bylaw test`: rules Bylaw cannot run answer `error`; an invalid policy fails the run with exit 2. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const pods = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: ghcr.io/acme/web:1.0}]}
`;
const verifyPolicy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: verify}
spec:
  validationFailureAction: Enforce
  rules:
    - name: check-sig
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages: [{imageReferences: ["*"], mutateDigest: false, verifyDigest: false, attestors: [{entries: [{keyless: {subject: s, issuer: i}}]}]}]
`;
const requireName = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-name}
spec:
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate: {pattern: {metadata: {name: "?*"}}}
`;
const suite = (policy: string, rows: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: s}
policies: [${policy}]
resources: [pods.yaml]
results:
${rows}`;

interface JsonOut {
  suites: {
    path: string;
    policyErrors: string[];
    results: { ok: boolean; reason: string; actual: string | null; message: string }[];
  }[];
}

async function run(files: Record<string, string>): Promise<{ code: number; out: JsonOut; stderr: string }> {
  const dir = tempTree(files);
  const io = recordingIo();
  const code = await main(["test", dir, "-o", "bylaw-json"], io);
  return { code, out: JSON.parse(io.stdout.join("\n")) as JsonOut, stderr: io.stderr.join("\n") };
}

describe("bylaw test: no silent pass", () => {
  test("a verifyImages row gets actual error: expecting pass fails, expecting error passes", async () => {
    const { code, out } = await run({
      "a/policy.yaml": verifyPolicy,
      "a/pods.yaml": pods,
      "a/kyverno-test.yaml": suite(
        "policy.yaml",
        "- {policy: verify, rule: check-sig, resources: [web], kind: Pod, result: pass}\n- {policy: verify, rule: check-sig, resources: [web], kind: Pod, result: error}\n",
      ),
    });
    assert.equal(code, 1);
    const rows = out.suites[0]?.results ?? [];
    assert.deepEqual(
      rows.map((r) => [r.ok, r.actual, r.reason]),
      [
        [false, "error", "Want pass, got error"],
        [true, "error", "Ok"],
      ],
    );
    assert.match(rows[0]?.message ?? "", /\.attestors\[0\]\.entries\[0\]\.keyless: keyless verification needs Fulcio/);
  });

  test("a row for a CEL policy kind gets actual error whatever rule it names, never Excluded", async () => {
    const vpol =
      "apiVersion: admissionregistration.k8s.io/v2alpha1\nkind: MutatingAdmissionPolicy\nmetadata: {name: vpol}\nspec: {mutations: []}\n";
    const { out } = await run({
      "a/policy.yaml": vpol,
      "a/pods.yaml": pods,
      "a/kyverno-test.yaml": suite(
        "policy.yaml",
        "- {policy: vpol, rule: vpol, resources: [web], kind: Pod, result: pass}\n- {policy: vpol, resources: [web], kind: Pod, result: pass}\n",
      ),
    });
    assert.deepEqual(
      out.suites[0]?.results.map((r) => [r.ok, r.actual]),
      [
        [false, "error"],
        [false, "error"],
      ],
    );
  });

  test("an invalid policy: exit 2, the suite names file, document and field, the other suites still run", async () => {
    const { code, out, stderr } = await run({
      "a/policy.yaml": `${requireName}---\n${requireName.replace("require-name", "broken").replace("validate:", "validat:")}`,
      "a/pods.yaml": pods,
      "a/kyverno-test.yaml": suite(
        "policy.yaml",
        "- {policy: require-name, rule: r, resources: [web], kind: Pod, result: pass}\n- {policy: broken, rule: r, resources: [web], kind: Pod, result: pass}\n",
      ),
      "b/policy.yaml": requireName,
      "b/pods.yaml": pods,
      "b/kyverno-test.yaml": suite(
        "policy.yaml",
        "- {policy: require-name, rule: r, resources: [web], kind: Pod, result: pass}\n",
      ),
    });
    assert.equal(code, 2);
    const [a, b] = out.suites;
    assert.match(
      a?.policyErrors[0] ?? "",
      /policy\.yaml: document 2 \(line \d+\): invalid policy broken: spec\.rules\[0\]\.validat: field not declared in schema; did you mean "validate"\?/,
    );
    assert.deepEqual(
      a?.results.map((r) => [r.ok, r.reason.slice(0, 15)]),
      [
        [true, "Ok"],
        [false, "Invalid policy:"],
      ],
    );
    assert.deepEqual(
      b?.results.map((r) => r.ok),
      [true],
    );
    assert.match(
      stderr,
      /^error: .*a\/policy\.yaml: document 2 \(line \d+\): invalid policy broken: spec\.rules\[0\]\.validat/m,
    );
  });

  test("a non-policy document among a suite's policies: exit 2", async () => {
    const { code, out } = await run({
      "a/policy.yaml": `${requireName}---\n${pods}`,
      "a/pods.yaml": pods,
      "a/kyverno-test.yaml": suite(
        "policy.yaml",
        "- {policy: require-name, rule: r, resources: [web], kind: Pod, result: pass}\n",
      ),
    });
    assert.equal(code, 2);
    assert.match(out.suites[0]?.policyErrors[0] ?? "", /document 2 \(line \d+\): not a policy: kind "Pod"/);
  });
});
