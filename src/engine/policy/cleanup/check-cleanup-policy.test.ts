import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import { cleanupPolicyProblems } from "./check-cleanup-policy.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";

const cleanup = (spec: JsonObject): JsonObject => ({
  apiVersion: "kyverno.io/v2",
  kind: "ClusterCleanupPolicy",
  metadata: { name: "c" },
  spec: { match: { any: [{ resources: { kinds: ["Pod"] } }] }, schedule: "*/5 * * * *", ...spec },
});
const texts = (doc: JsonObject): string[] => cleanupPolicyProblems(doc).map((p) => `${p.path}: ${p.message}`);

test("a valid cleanup policy has no problems", () => {
  assert.deepEqual(texts(cleanup({})), []);
});

test("an invalid cron schedule gets Kyverno's text", () => {
  assert.deepEqual(texts(cleanup({ schedule: "every minute" })), [
    'spec.schedule: Invalid value: "every minute": schedule spec in the cleanupPolicy is not in proper cron format',
  ]);
});

test("roles, clusterRoles and subjects in match or exclude are forbidden, each at its path", () => {
  const doc = cleanup({
    match: { any: [{ resources: { kinds: ["Pod"] }, roles: ["ns:r"] }] },
    exclude: { all: [{ clusterRoles: ["admin"], subjects: [{ kind: "User", name: "u" }] }] },
  });
  assert.deepEqual(texts(doc), [
    "spec.match.any[0].roles: Forbidden: Usage of user info is forbidden",
    "spec.exclude.all[0].clusterRoles: Forbidden: Usage of user info is forbidden",
    "spec.exclude.all[0].subjects: Forbidden: Usage of user info is forbidden",
  ]);
});

test("configMap and imageRegistry context entries are not allowed; apiCall and variable are", () => {
  const context = [
    { name: "cm", configMap: { name: "x", namespace: "y" } },
    { name: "img", imageRegistry: { reference: "nginx" } },
    { name: "v", variable: { value: 1 } },
  ];
  const found = texts(cleanup({ context }));
  assert.equal(found.length, 2);
  assert.match(found[0] ?? "", /^spec\.context: Invalid value: .*: ConfigMap is not allowed in CleanUp Policy$/);
  assert.match(found[1] ?? "", /^spec\.context: Invalid value: .*: ImageRegistry is not allowed in CleanUp Policy$/);
});

test("the engine refuses an invalid cleanup policy with these problems instead of a placeholder", () => {
  const engine = createEngine(fakePorts());
  const bad = engine.compile(cleanup({ schedule: "61 * * * *" }));
  assert.equal(bad.ok, false);
  assert.deepEqual(bad.ok ? [] : bad.problems.map((p) => p.path), ["spec.schedule"]);
  const good = engine.compile(cleanup({}));
  assert.ok(good.ok);
  assert.equal(
    good.policy.language === "unsupported" ? good.policy.unsupportedKind : good.policy.language,
    "kyverno.io/v2 ClusterCleanupPolicy",
  );
});

test("a namespaced CleanupPolicy may not filter on namespaces (Kyverno's text); a ClusterCleanupPolicy may", () => {
  const spec = {
    match: { any: [{ resources: { kinds: ["ConfigMap"], namespaces: ["tenant-b", "kube-system"] } }] },
    exclude: { resources: { namespaces: ["tenant-a"] } },
  };
  const namespaced = { ...cleanup(spec), kind: "CleanupPolicy", metadata: { name: "c", namespace: "tenant-a" } };
  assert.deepEqual(texts(namespaced), [
    "spec.match.any[0].resources.namespaces: Forbidden: Filtering namespaces not allowed in namespaced policies",
    "spec.exclude.resources.namespaces: Forbidden: Filtering namespaces not allowed in namespaced policies",
  ]);
  assert.deepEqual(texts(cleanup(spec)), []);
});
