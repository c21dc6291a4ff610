/**
 * A ValidatingPolicy in HTTP or Envoy evaluation mode may leave out matchConstraints: Kyverno's CLI
 * loads it and its matcher matches no Kubernetes request with it, so it gives no result for a
 * resource (it was refused before, failing the whole run). Kubernetes mode still requires them.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policy = (mode: string) => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: gateway-${mode.toLowerCase()}}
spec:
  evaluation: {mode: ${mode}}
  validations:
    - expression: "object.attributes.request.http.method == 'GET'"
      message: only GET
`;
const pod = `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: c, image: web:1}]}\n`;

async function cli(args: string[], files: Record<string, string>) {
  const dir = tempTree(files);
  const io = recordingIo("");
  const code = await main(
    args.map((a) => a.replaceAll("$DIR", dir)),
    io,
  );
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("ValidatingPolicies in HTTP and Envoy mode without matchConstraints", () => {
  for (const mode of ["HTTP", "Envoy"])
    test(`bylaw apply loads a ${mode} one and it matches no resource`, async () => {
      const { code, out, err } = await cli(["apply", "$DIR/p.yaml", "-r", "$DIR/pod.yaml"], {
        "p.yaml": policy(mode),
        "pod.yaml": pod,
      });
      assert.equal(err, "");
      assert.equal(code, 0, out);
      assert.match(out, /pass: 0, fail: 0, warn: 0, error: 0, skip: 0/);
    });

  test("bylaw test: a row for a resource finds no result (Not found, a failure), as kyverno test: never an excluded pass", async () => {
    const { code, out } = await cli(["test", "$DIR"], {
      "p.yaml": policy("HTTP"),
      "pod.yaml": pod,
      "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: gateway}
policies: [p.yaml]
resources: [pod.yaml]
results:
  - {policy: gateway-http, resources: [web], result: pass, isValidatingPolicy: true}
`,
    });
    assert.equal(code, 1, out);
    assert.match(out, /│ 1 +│ gateway-http │ +│ v1\/Pod\/shop\/web │ Fail +│ Not found │/);
    assert.doesNotMatch(out, /Excluded/);
  });

  test("a Kubernetes-mode ValidatingPolicy without matchConstraints is still refused, naming the field", async () => {
    const { code, err } = await cli(["apply", "$DIR/p.yaml", "-r", "$DIR/pod.yaml"], {
      "p.yaml": policy("Kubernetes"),
      "pod.yaml": pod,
    });
    assert.equal(code, 2);
    assert.match(err, /matchConstraints is required/);
  });
});
