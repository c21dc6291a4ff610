/**
 * MutatingPolicy and NamespacedMutatingPolicy in the webhook (issue 34 §3), end to end against a
 * real API server with kubectl:
 * - a MutatingPolicy is admitted at `kubectl apply` and adds a label to a new Pod (ApplyConfiguration);
 * - a NamespacedMutatingPolicy acts only in its own namespace;
 * - a MutatingPolicy whose expression errors follows its failurePolicy: Fail denies the request
 *   with a message naming the policy, Ignore admits it unchanged;
 * - `reinvocationPolicy: IfNeeded`: a policy runs again when a later one changed the object (it
 *   copies a label the later policy sets), and Bylaw's mutating webhooks are registered IfNeeded.
 * - an ApplyConfiguration is typed with the cluster's own OpenAPI v3, as Kyverno's admission
 *   controller types it: setting a Pod's atomic `tolerations` is an error; a field a CRD's schema
 *   does not declare is an error until the CRD declares it, then it is patched.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const rules = (resources: string) => `  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: [${resources}]
`;

const POLICIES = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: add-labels
spec:
${rules("pods")}  matchConditions:
  - name: not-opted-out
    expression: "!has(object.metadata.labels) || !('skip' in object.metadata.labels)"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: |
        Object{
          metadata: Object.metadata{
            labels: Object.metadata.labels{
              foo: "bar"
            }
          }
        }
---
apiVersion: policies.kyverno.io/v1
kind: NamespacedMutatingPolicy
metadata:
  name: team-label
  namespace: team-a
spec:
${rules("pods")}  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: |
        [JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/team"), value: "a"}]
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: broken-fail
spec:
  failurePolicy: Fail
${rules("configmaps")}  matchConditions:
  - name: only-fail
    expression: "object.metadata.name.startsWith('fail-')"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'x': object.data['missing']}}}"
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: broken-ignore
spec:
  failurePolicy: Ignore
${rules("configmaps")}  matchConditions:
  - name: only-ignore
    expression: "object.metadata.name.startsWith('ignore-')"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'x': object.data['missing']}}}"
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: reinvoke-a-copy
spec:
  reinvocationPolicy: IfNeeded
${rules("configmaps")}  matchConditions:
  - name: only-reinvoke
    expression: "object.metadata.name.startsWith('reinvoke-')"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'copy': has(object.metadata.labels) && 'tier' in object.metadata.labels ? object.metadata.labels['tier'] : 'none'}}}"
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: reinvoke-b-tier
spec:
${rules("configmaps")}  matchConditions:
  - name: only-reinvoke
    expression: "object.metadata.name.startsWith('reinvoke-')"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'tier': 'web'}}}"
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: add-toleration
spec:
  failurePolicy: Fail
${rules("pods")}  matchConditions:
  - name: only-tolerate
    expression: "object.metadata.name.startsWith('tolerate-')"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: |
        Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: "dedicated", operator: "Exists"}]}}
`;

const widgetCrd = (properties: Record<string, unknown>): string =>
  JSON.stringify({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.io" },
    spec: {
      group: "example.io",
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties } } },
          },
        },
      ],
    },
  });

const WIDGET_POLICY = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: widget-color
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["example.io"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["widgets"]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{spec: Object.spec{color: "red"}}'
`;

const widget = (name: string): string =>
  JSON.stringify({
    apiVersion: "example.io/v1",
    kind: "Widget",
    metadata: { name, namespace: "default" },
    spec: { size: 1 },
  });

const pod = (name: string, namespace: string, labels: Record<string, string> = { app: "web" }): string =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  });

const configMap = (name: string): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data: { a: "b" } });

async function labelsOf(kind: string, name: string, namespace: string): Promise<Record<string, string>> {
  const obj = JSON.parse(await ok(["get", kind, name, "-n", namespace, "-o", "json"])) as {
    metadata?: { labels?: Record<string, string> };
  };
  return obj.metadata?.labels ?? {};
}

describe("MutatingPolicy in the webhook", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    for (const ns of ["team-a", "team-b"]) await ok(["create", "namespace", ns]);
    await ok(["apply", "-f", "-"], POLICIES);
    // Served once the webhook answers with the patch (the configuration is registered a little later).
    await eventually("the MutatingPolicy served", 90_000, async () => {
      const r = await current().kubectl(
        ["create", "--dry-run=server", "-o", "json", "-f", "-"],
        pod("probe", "team-b"),
      );
      return r.code === 0 && r.stdout.includes('"foo": "bar"') ? true : undefined;
    });
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("a MutatingPolicy adds a label to a new Pod; its matchConditions leave an opted-out one alone", async () => {
    await ok(["create", "-f", "-"], pod("web", "team-b"));
    assert.deepEqual(await labelsOf("pod", "web", "team-b"), { app: "web", foo: "bar" });
    await ok(["create", "-f", "-"], pod("quiet", "team-b", { skip: "yes" }));
    assert.deepEqual(await labelsOf("pod", "quiet", "team-b"), { skip: "yes" });
  });

  test("a NamespacedMutatingPolicy acts only in its own namespace", async () => {
    await ok(["create", "-f", "-"], pod("web", "team-a"));
    assert.deepEqual(await labelsOf("pod", "web", "team-a"), { app: "web", "example.com/team": "a", foo: "bar" });
    await ok(["create", "-f", "-"], pod("other", "team-b"));
    assert.equal((await labelsOf("pod", "other", "team-b"))["example.com/team"], undefined);
  });

  test("an expression that errors follows failurePolicy: Fail denies naming the policy, Ignore admits unchanged", async () => {
    const denied = await current().kubectl(["create", "-f", "-"], configMap("fail-me"));
    assert.notEqual(denied.code, 0, denied.stdout);
    assert.match(denied.stderr, /broken-fail/);
    assert.match(denied.stderr, /missing/);
    await ok(["create", "-f", "-"], configMap("ignore-me"));
    assert.deepEqual(await labelsOf("configmap", "ignore-me", "default"), {});
  });

  test("reinvocationPolicy IfNeeded: the earlier policy runs again and sees the later one's label", async () => {
    await ok(["create", "-f", "-"], configMap("reinvoke-me"));
    assert.deepEqual(await labelsOf("configmap", "reinvoke-me", "default"), { copy: "web", tier: "web" });
    const configs = JSON.parse(await ok(["get", "mutatingwebhookconfigurations", "-o", "json"])) as {
      items: { metadata: { name: string }; webhooks?: { name: string; reinvocationPolicy?: string }[] }[];
    };
    const bylaw = configs.items
      .filter((c) => c.metadata.name === "bylaw-resource-mutating-webhook-cfg")
      .flatMap((c) => c.webhooks ?? []);
    assert.ok(bylaw.length > 0, "Bylaw registers a mutating webhook");
    for (const w of bylaw) assert.equal(w.reinvocationPolicy, "IfNeeded", w.name);
  });

  test("the cluster's OpenAPI types a Pod: setting its atomic tolerations is the policy's error (Fail denies)", async () => {
    const r = await current().kubectl(["create", "-f", "-"], pod("tolerate-me", "team-b"));
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, /add-toleration/);
    assert.match(r.stderr, /may not mutate atomic arrays, maps or structs: \.spec\.tolerations/);
  });

  test("a field a CRD's schema does not declare is an error until the CRD declares it, then it is patched", async () => {
    await ok(["apply", "-f", "-"], widgetCrd({ size: { type: "integer" } }));
    await ok(["wait", "--for=condition=Established", "crd/widgets.example.io", "--timeout=60s"]);
    await ok(["apply", "-f", "-"], WIDGET_POLICY);
    // Registered for widgets once Bylaw has discovered the kind; the schema read from /openapi/v3.
    const denial = await eventually("the undeclared field refused", 90_000, async () => {
      const r = await current().kubectl(["create", "--dry-run=server", "-o", "json", "-f", "-"], widget("probe"));
      return r.code !== 0 && /field not declared in schema/.test(r.stderr) ? r.stderr : undefined;
    });
    assert.match(denial, /widget-color/);
    assert.match(denial, /failed to convert patch object to typed object: \.spec\.color/);
    await ok(["apply", "-f", "-"], widgetCrd({ size: { type: "integer" }, color: { type: "string" } }));
    // The index is re-read every 5 s; the changed document is fetched on the next review.
    await eventually("the declared field patched", 60_000, async () => {
      const r = await current().kubectl(["create", "-f", "-"], widget("red"));
      return r.code === 0 ? true : undefined;
    });
    const created = JSON.parse(await ok(["get", "widgets.example.io", "red", "-n", "default", "-o", "json"])) as {
      spec?: Record<string, unknown>;
    };
    assert.deepEqual(created.spec, { size: 1, color: "red" });
  });
});
