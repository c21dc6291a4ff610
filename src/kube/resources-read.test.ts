import { test } from "node:test";
import assert from "node:assert/strict";
import { readsRoles, resourcesRead } from "./live-cluster.js";

test("the resources policies read through context entries are found without evaluating them", () => {
  const policy = {
    spec: {
      rules: [
        {
          name: "a",
          context: [
            {
              name: "pods",
              apiCall: { urlPath: "/api/v1/namespaces/{{request.namespace}}/pods", jmesPath: "items | length(@)" },
            },
          ],
        },
        { name: "b", context: [{ name: "cm", configMap: { name: "x", namespace: "y" } }] },
        {
          name: "c",
          context: [
            {
              name: "d",
              apiCall: {
                urlPath: "/apis/apps/v1/namespaces/{{request.namespace}}/deployments/{{request.object.metadata.name}}",
              },
            },
          ],
        },
        {
          name: "d",
          context: [
            { name: "any", apiCall: { urlPath: "/apis/{{g}}/v1/things" } },
            { name: "sub", apiCall: { urlPath: "/api/v1/namespaces/x/pods/p/log" } },
          ],
        },
        {
          name: "e",
          validate: { foreach: [{ list: "x", context: [{ name: "n", apiCall: { urlPath: "/api/v1/namespaces" } }] }] },
        },
        // A POST is a call made per review, not a cache to start (a SubjectAccessReview cannot be listed).
        {
          name: "g",
          context: [
            { name: "sar", apiCall: { urlPath: "/apis/authorization.k8s.io/v1/subjectaccessreviews", method: "POST" } },
          ],
        },
        // Not a context entry: a field named apiCall elsewhere is not read.
        { name: "f", validate: { pattern: { apiCall: { urlPath: "/api/v1/secrets" } } } },
      ],
    },
  };
  assert.deepEqual(
    resourcesRead([policy]).map((g) => `${g.group}/${g.version}/${g.resource}`),
    ["/v1/pods", "/v1/configmaps", "apps/v1/deployments", "/v1/namespaces"],
  );
});

test("a policy reads roles when it names roles or clusterRoles in match/exclude or a variable", () => {
  assert.equal(readsRoles({ spec: { rules: [{ match: { any: [{ clusterRoles: ["x"] }] } }] } }), true);
  assert.equal(readsRoles({ spec: { rules: [{ validate: { message: "{{ request.roles }}" } }] } }), true);
  assert.equal(readsRoles({ spec: { rules: [{ match: { any: [{ resources: { kinds: ["Pod"] } }] } }] } }), false);
});
