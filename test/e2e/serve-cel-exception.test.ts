/**
 * `bylaw serve --policies DIR` over real HTTPS with a ValidatingPolicy and a policies.kyverno.io
 * PolicyException in the folder (compiled again in the evaluation worker): the request the
 * exception matches is admitted, the others denied; --exception-namespace restricts which count.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pod } from "../support/builders.js";
import { tempTree } from "../support/temp-dir.js";
import { podReview, startServe } from "./serve-harness.js";

const folder = {
  "no-latest.yaml": `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: no-latest}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  validations:
    - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
      message: images must not use the latest tag
`,
  "exception.yaml": `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata: {name: debug-tools, namespace: platform}
spec:
  policyRefs: [{kind: ValidatingPolicy, name: no-latest}]
  matchConditions:
    - {name: debug, expression: "object.metadata.name.startsWith('debug-')"}
`,
};

type Review = { response: { allowed: boolean; status?: { message: string } } };

async function allowed(extra: string[], name: string): Promise<boolean[]> {
  const server = await startServe(["--policies", tempTree(folder), ...extra]);
  try {
    const out: boolean[] = [];
    for (const n of [name, "web"]) {
      const r = await server.post(
        "/validate/fail",
        podReview({
          namespace: "shop",
          name: n,
          object: pod({ name: n, namespace: "shop", image: "busybox:latest" }),
        }),
      );
      assert.equal(r.status, 200);
      out.push((r.json as Review).response.allowed);
    }
    return out;
  } finally {
    assert.equal(await server.stop(), 0);
  }
}

describe("bylaw serve: policies.kyverno.io PolicyException in the policy folder", () => {
  test("the Pod the exception matches is admitted; another is denied", async () => {
    assert.deepEqual(await allowed([], "debug-shell"), [true, false]);
  });

  test("--exception-namespace naming another namespace: the exception is not honoured", async () => {
    assert.deepEqual(await allowed(["--exception-namespace", "elsewhere"], "debug-shell"), [false, false]);
    assert.deepEqual(await allowed(["--exception-namespace", "platform"], "debug-shell"), [true, false]);
  });
});
