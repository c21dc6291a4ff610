/**
 * With `--register`, a namespaced policy's registration covers only its namespace (issue 32 §9):
 * its rules go on a webhook of its namespace's own (`…-ns-<ns>`, namespaceSelector In [ns], path
 * `…/ns/<ns>`), never on the shared one; cluster-scoped kinds are never registered for it; every
 * resource webhook leaves Bylaw's own objects' deletion alone, and a namespace's webhooks the
 * deletions by the cluster's controllers (a namespace being deleted is emptied).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { buildConfigurations, OWN_OBJECTS_CONDITION, TENANT_CONDITION } from "./build-configurations.js";
import type { RegistrationTarget, Webhook } from "../../controllers/registration/types.js";
import type { TimeoutGroups } from "../admission/webhook-groups.js";
import { parseNamespacePath, groupPath } from "../admission/webhook-groups.js";
import { servedBy } from "../admission/policy-traits.js";

const engine = createEngine(fakePorts());
const compile = (doc: JsonObject): CompiledPolicy => {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
};
const validate = { message: "m", pattern: { metadata: { labels: { app: "?*" } } } };
const onKinds = (name: string, namespace: string, kinds: string[], spec: JsonObject = {}): CompiledPolicy => {
  // Kind * only with background off (Kyverno's wildcard check); the others keep the default.
  const doc = clusterPolicy(name, [{ name: "r", match: { any: [{ resources: { kinds } }] }, validate }], {
    validationFailureAction: "Enforce",
    ...(kinds.includes("*") ? { background: false } : {}),
    ...spec,
  });
  return compile(namespace === "" ? doc : { ...doc, kind: "Policy", metadata: { name, namespace } });
};
const target: RegistrationTarget = {
  endpoint: { kind: "url", base: "https://10.0.0.5:9443" },
  caPem: "x",
  ownNamespace: "bylaw",
};
const registered: TimeoutGroups = { defaultSeconds: 10, extra: [], fineGrained: true };
const names = (hooks: readonly Webhook[]): string[] => hooks.map((h) => h.name);
const only = (hooks: readonly Webhook[], name: string): Webhook => {
  const w = hooks.find((h) => h.name === name);
  assert.ok(w, `no webhook ${name} in ${names(hooks).join(", ")}`);
  return w;
};

describe("registration: a namespaced policy covers only its namespace", () => {
  const admin = onKinds("admin", "", ["Service"]);
  const wide = onKinds("wide", "tenant-a", ["*"]);
  const nodes = onKinds("nodes", "tenant-a", ["Namespace", "Node", "ConfigMap"]);
  const other = onKinds("other", "tenant-b", ["Secret"]);
  const c = buildConfigurations([admin, wide, nodes, other], registered, target);

  test("the shared webhook carries the cluster-wide policies only; each namespace gets its own, selecting it alone", () => {
    assert.deepEqual(names(c.validating.webhooks), [
      "validate.bylaw.svc-fail",
      "validate.bylaw.svc-fail-ns-tenant-a",
      "validate.bylaw.svc-fail-ns-tenant-b",
    ]);
    const shared = only(c.validating.webhooks, "validate.bylaw.svc-fail");
    assert.deepEqual(
      shared.rules.flatMap((r) => r.resources),
      ["services"],
    );
    const a = only(c.validating.webhooks, "validate.bylaw.svc-fail-ns-tenant-a");
    assert.deepEqual(a.namespaceSelector?.matchExpressions?.at(-1), {
      key: "kubernetes.io/metadata.name",
      operator: "In",
      values: ["tenant-a"],
    });
    assert.equal(a.clientConfig.url, "https://10.0.0.5:9443/validate/fail/ns/tenant-a");
    assert.ok(a.matchConditions?.some((m) => m.name === TENANT_CONDITION.name));
    assert.ok(!shared.matchConditions?.some((m) => m.name === TENANT_CONDITION.name));
    for (const w of c.validating.webhooks)
      assert.ok(w.matchConditions?.some((m) => m.name === OWN_OBJECTS_CONDITION.name));
    assert.deepEqual(c.owners.get("bylaw-resource-validating-webhook-cfg")?.get(a.name), [
      "Policy/tenant-a/wide",
      "Policy/tenant-a/nodes",
    ]);
  });

  test("a namespaced policy's `*` is every namespaced resource; the cluster-scoped kinds it names are not registered", () => {
    const a = only(c.validating.webhooks, "validate.bylaw.svc-fail-ns-tenant-a");
    for (const r of a.rules) assert.equal(r.scope, "Namespaced", JSON.stringify(r));
    const resources = a.rules.flatMap((r) => r.resources);
    assert.ok(!resources.includes("namespaces") && !resources.includes("nodes"), resources.join(","));
  });

  test("a namespaced policy with its own webhook (matchConditions) selects only its namespace too", () => {
    const own = onKinds("own", "tenant-a", ["ConfigMap"], {
      webhookConfiguration: { matchConditions: [{ name: "c", expression: "true" }] },
    });
    const w = only(
      buildConfigurations([own], registered, target).validating.webhooks,
      "validate.bylaw.svc-fail-finegrained-tenant-a-own",
    );
    assert.ok(
      w.namespaceSelector?.matchExpressions?.some((e) => e.operator === "In" && e.values?.join() === "tenant-a"),
    );
    assert.deepEqual(
      w.matchConditions?.map((m) => m.name),
      ["c", OWN_OBJECTS_CONDITION.name, TENANT_CONDITION.name],
    );
  });

  test("without --register (static webhooks) the shared webhook still carries every policy", () => {
    const flat = buildConfigurations([admin, wide], { defaultSeconds: 10, extra: [] }, target);
    assert.deepEqual(names(flat.validating.webhooks), ["validate.bylaw.svc-fail"]);
  });
});

describe("a namespace's path serves that namespace's policies only", () => {
  const admin = onKinds("admin", "", ["Service"]);
  const wide = onKinds("wide", "tenant-a", ["*"]);
  const other = onKinds("other", "tenant-b", ["Secret"]);
  test("its path parses back to its group; the shared group leaves namespaced policies out", () => {
    const parsed = parseNamespacePath("/validate/fail/ns/tenant-a", registered);
    assert.ok(parsed);
    assert.equal(parsed.kind, "validate");
    assert.equal(groupPath("validate", parsed.group), "/validate/fail/ns/tenant-a");
    assert.deepEqual(
      [admin, wide, other].filter((p) => servedBy(p, parsed.group)).map((p) => p.name),
      ["wide"],
    );
    const shared = { mode: "fail" as const, timeoutSeconds: 10, isDefault: true, fineGrained: true };
    assert.deepEqual(
      [admin, wide, other].filter((p) => servedBy(p, shared)).map((p) => p.name),
      ["admin"],
    );
    const timed = parseNamespacePath("/mutate/ignore/timeout-20s/ns/b", registered);
    assert.equal(timed?.group.timeoutSeconds, 20);
    assert.equal(parseNamespacePath("/validate/fail/ns/Bad_Name", registered), undefined);
  });
});
