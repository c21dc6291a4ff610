import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../engine/index.js";
import { tenantProblems } from "./tenant-problems.js";

const policy = (context: JsonValue[]): JsonValue => ({ spec: { rules: [{ name: "r", context }] } });
const paths = (ps: { path: string; message: string }[]): string[] => ps.map((p) => `${p.path}: ${p.message}`);

test("a namespaced Policy whose context visibly leaves its namespace is invalid, naming the field", () => {
  const problems = tenantProblems(
    policy([
      { name: "a", apiCall: { urlPath: "/api/v1/namespaces/tenant-b/configmaps/canary" } },
      { name: "b", apiCall: { urlPath: "/api/v1/secrets" } },
      { name: "c", apiCall: { urlPath: "/api/v1/namespaces/tenant-b/pods/{{request.object.metadata.name}}" } },
      { name: "d", apiCall: { urlPath: "/api/v1/namespaces/tenant-a/pods", method: "POST", data: [] } },
      { name: "e", apiCall: { service: { url: "http://169.254.169.254/" } } },
      { name: "f", configMap: { name: "x", namespace: "kube-system" } },
      { name: "g", globalReference: { name: "all-secrets" } },
      { name: "h", apiCall: { urlPath: "/api/v1/namespaces/tenant-a/configmaps/%2e%2e" } },
    ]),
    "tenant-a",
  );
  const text = paths(problems);
  assert.equal(text.length, 8, text.join("\n"));
  assert.match(text[0] ?? "", /^spec\.rules\[0\]\.context\[0\]\.apiCall\.urlPath: .*may not read namespace "tenant-b"/);
  assert.match(text[1] ?? "", /context\[1\]\.apiCall\.urlPath: .*not namespaced/);
  assert.match(text[2] ?? "", /context\[2\]\.apiCall\.urlPath: .*reads namespace "tenant-b"/);
  assert.match(text[3] ?? "", /context\[3\]\.apiCall: .*may only GET/);
  assert.match(text[4] ?? "", /context\[4\]\.apiCall: .*may not call a service/);
  assert.match(
    text[5] ?? "",
    /context\[5\]\.configMap\.namespace: .*configMap namespace "kube-system" is different from policy namespace "tenant-a"/,
  );
  assert.match(text[6] ?? "", /context\[6\]\.globalReference: .*globalReference is not allowed/);
  assert.match(text[7] ?? "", /%2E is not allowed/);
});

test("its own namespace, and namespaces only known at run time, load; a ClusterPolicy is not checked", () => {
  const ok = policy([
    { name: "a", apiCall: { urlPath: "/api/v1/namespaces/tenant-a/pods", jmesPath: "items | length(@)" } },
    { name: "b", apiCall: { urlPath: "/api/v1/namespaces/{{request.namespace}}/pods" } },
    { name: "c", configMap: { name: "x" } },
    { name: "d", configMap: { name: "x", namespace: "{{request.namespace}}" } },
  ]);
  assert.deepEqual(tenantProblems(ok, "tenant-a"), []);
  assert.deepEqual(tenantProblems(policy([{ name: "a", apiCall: { urlPath: "/api/v1/secrets" } }]), ""), []);
});

test("a namespaced Policy or CleanupPolicy matching a cluster-wide built-in kind is invalid at that kind; namespaced kinds and ClusterPolicies pass", () => {
  const rulePolicy: JsonValue = {
    spec: {
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["Pod", "Namespace"] } }] },
          exclude: { resources: { kinds: ["rbac.authorization.k8s.io/v1/ClusterRole"] } },
        },
      ],
    },
  };
  assert.deepEqual(paths(tenantProblems(rulePolicy, "tenant-a")), [
    "spec.rules[0].match.any[0].resources.kinds[1]: Forbidden: Cluster wide resource 'Namespace' not allowed in namespaced policy",
    "spec.rules[0].exclude.resources.kinds[0]: Forbidden: Cluster wide resource 'rbac.authorization.k8s.io/v1/ClusterRole' not allowed in namespaced policy",
  ]);
  const cleanup: JsonValue = {
    spec: { schedule: "*/1 * * * *", match: { all: [{ resources: { kinds: ["ConfigMap", "Node"] } }] } },
  };
  assert.deepEqual(paths(tenantProblems(cleanup, "tenant-a")), [
    "spec.match.all[0].resources.kinds[1]: Forbidden: Cluster wide resource 'Node' not allowed in namespaced policy",
  ]);
  assert.deepEqual(tenantProblems(cleanup, ""), []);
  assert.deepEqual(
    tenantProblems({ spec: { match: { any: [{ resources: { kinds: ["ConfigMap", "Secret"] } }] } } }, "tenant-a"),
    [],
  );
});
