/** `bylaw apply` with a GeneratingPolicy prints what it would generate, as it does for a ClusterPolicy generate rule (issue 34 §3). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policy = `apiVersion: policies.kyverno.io/v1
kind: GeneratingPolicy
metadata: {name: default-deny}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}
  generate:
    - expression: >-
        generator.Apply(object.metadata.name, [{"apiVersion": dyn("networking.k8s.io/v1"),
        "kind": dyn("NetworkPolicy"), "metadata": dyn({"name": "default-deny"}),
        "spec": dyn({"podSelector": dyn({})})}])
`;
const namespace = `apiVersion: v1
kind: Namespace
metadata: {name: team-a}
`;

test("bylaw apply prints the NetworkPolicy a GeneratingPolicy generates for a Namespace, unlabelled as Kyverno's CLI prints it", async () => {
  const dir = tempTree({ "p.yaml": policy, "r.yaml": namespace });
  const io = recordingIo();
  const code = await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], io);
  const out = io.stdout.join("\n");
  assert.equal(code, 0, io.stderr.join("\n"));
  assert.match(out, /pass: 1, fail: 0, warn: 0, error: 0, skip: 0/);
  assert.match(
    out,
    /\npolicy default-deny applied to \/Namespace\/team-a:\napiVersion: networking.k8s.io\/v1\nkind: NetworkPolicy\nmetadata:\n {4}name: default-deny\n {4}namespace: team-a\nspec:\n {4}podSelector: \{\}\n\n---\n\n\nGenerate:\nGeneration completed successfully\.\n/,
  );
  assert.doesNotMatch(out, /generate\.kyverno\.io\//);
  assert.doesNotMatch(io.stderr.join("\n"), /not supported/);
});
