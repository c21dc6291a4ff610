/**
 * `bylaw apply -f values.yaml`: values a policy is given for one resource reach that policy alone.
 * The policies without values of their own share one prepared request per resource (command.ts,
 * requestBuilder), so each is checked in both policy orders.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policy = (name: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: limit
      match:
        any:
          - resources:
              kinds: [Pod]
      # Offline, the values file answers the API call (as Kyverno's CLI).
      context:
        - name: limit
          apiCall:
            urlPath: "/api/v1/namespaces"
            jmesPath: "items | length(@)"
      validate:
        message: "limit {{ limit }} is below 3"
        deny:
          conditions:
            any:
              - key: "{{ limit }}"
                operator: LessThan
                value: 3
`;
const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const values = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
globalValues:
  limit: 5
policies:
  - name: own
    resources:
      - name: first
        values:
          limit: 1
`;

for (const order of [
  ["own", "shared"],
  ["shared", "own"],
]) {
  test(`values given to one policy for one resource reach no other policy or resource (policies ${order.join(", ")})`, async () => {
    const dir = tempTree({
      "policies.yaml": order.map(policy).join("---\n"),
      "pods.yaml": `${pod("first")}---\n${pod("second")}`,
      "values.yaml": values,
    });
    const io = recordingIo();
    const code = await main(
      ["apply", join(dir, "policies.yaml"), "-r", join(dir, "pods.yaml"), "-f", join(dir, "values.yaml")],
      io,
    );
    const out = io.stdout.join("\n");
    assert.equal(code, 1, out);
    // Only `own` on `first` reads limit 1; the three other pairs read the global 5.
    assert.match(out, /policy own -> resource shop\/Pod\/first failed:\n1 - limit limit 1 is below 3/);
    assert.doesNotMatch(out, /policy shared -> resource/);
    assert.doesNotMatch(out, /resource shop\/Pod\/second failed/);
    assert.match(out, /pass: 3, fail: 1, warn: 0, error: 0, skip: 0/);
  });
}
