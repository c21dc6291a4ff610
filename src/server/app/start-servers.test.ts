import { test } from "node:test";
import assert from "node:assert/strict";
import { fakeDeps } from "../../../test/support/fake-admission-deps.js";
import { admissionRoutes } from "./start-servers.js";

test("/policymutate allows a policy unchanged, echoing the uid, and refuses a body that is not an AdmissionReview", async () => {
  const handler = admissionRoutes(fakeDeps().deps).get("/policymutate");
  assert.ok(handler !== undefined);
  const ok = await handler({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "u-7",
      kind: { group: "kyverno.io", version: "v1", kind: "ClusterPolicy" },
      operation: "CREATE",
      object: {},
    },
  });
  assert.deepEqual(ok, {
    status: 200,
    body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "u-7", allowed: true } },
  });
  for (const body of [null, {}, { request: { uid: 1 } }])
    assert.equal((await handler(body)).status, 400, JSON.stringify(body));
});
