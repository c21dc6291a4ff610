/**
 * A MutatingPolicy with `evaluation.mutateExisting.enabled` in a cluster (issue 34 §3), against
 * `scripts/cluster.sh up DIR --with-bylaw` with kubectl, in the shape of Kyverno's docs ("Different
 * Trigger and Target"): creating the Namespace `trigger-ns` labels every Secret in namespaces
 * labelled `test: enabled` (targetMatchConstraints with a namespaceSelector), leaves the Secrets
 * of other namespaces alone, and the policy is Ready (conditionStatus.ready) once the background controller runs;
 * with `targetMatchConstraints.expression`, the one Secret a trigger ConfigMap names is labelled; and
 * when a policy appears, the targets that exist already are patched (Kyverno's `cel-mutate` scan), and
 * again every --background-scan-interval (Kyverno's policy requeue).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  eventually,
  kubectlOk,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";
import { GENERATE_AS_BACKGROUND, GENERATE_AS_BACKGROUND_ARGS } from "./generate-as-background.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

/** What Kyverno's docs tell users to add so the background controller may update Secrets. */
const SECRET_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:secrets:mutate
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [""]
    resources: [secrets, namespaces]
    verbs: [get, list, watch, update]
`;

const MPOL = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: label-secrets-on-namespace
spec:
  evaluation:
    mutateExisting:
      enabled: true
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [namespaces]
        resourceNames: [trigger-ns]
  targetMatchConstraints:
    namespaceSelector:
      matchLabels:
        test: enabled
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [secrets]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{metadata: Object.metadata{labels: Object.metadata.labels{foo: "bar"}}}
`;

/** Targets from an expression: a ConfigMap named pick names the Secret beside it (data.target) to label picked=yes. */
const PICK = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: label-picked-secret
spec:
  evaluation:
    mutateExisting:
      enabled: true
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [configmaps]
        resourceNames: [pick]
  targetMatchConstraints:
    expression: resource.Get("v1", "secrets", object.metadata.namespace, object.data.target)
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [secrets]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{metadata: Object.metadata{labels: Object.metadata.labels{picked: "yes"}}}
`;

/** No trigger: when it appears, every Secret already in a namespace labelled scan=yes is labelled scanned=yes. */
const SCAN = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: label-existing-secrets
spec:
  evaluation:
    mutateExisting:
      enabled: true
  matchConstraints:
    namespaceSelector:
      matchLabels:
        scan: "yes"
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [secrets]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{metadata: Object.metadata{labels: Object.metadata.labels{scanned: "yes"}}}
`;

/** A custom resource (widgets.example.com) the background controller may update, as Kyverno's docs grant it. */
const WIDGETS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:widgets:mutate
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [example.com]
    resources: [widgets]
    verbs: [get, list, watch, update]
`;

/** Labels every Widget in namespace gadgets when it appears: a custom resource's kind comes from discovery. */
const WIDGET_SCAN = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: label-widgets
spec:
  evaluation:
    mutateExisting:
      enabled: true
  matchConstraints:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: gadgets
    resourceRules:
      - apiGroups: [example.com]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [widgets]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{metadata: Object.metadata{labels: Object.metadata.labels{scanned: "yes"}}}
`;

/** A custom resource whose schema declares spec.size only (its schema edited in the test to declare spec.color). */
const gizmoCrd = (properties: Record<string, unknown>): string =>
  JSON.stringify({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gizmos.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { kind: "Gizmo", plural: "gizmos", singular: "gizmo", listKind: "GizmoList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties } } } },
        },
      ],
    },
  });

const GIZMO_GRANT = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:gizmos:mutate
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [example.com]
    resources: [gizmos]
    verbs: [get, list, watch, update]
`;

/** Sets a Gizmo's spec.color: typed with the cluster's OpenAPI v3, an error until the CRD declares it. */
const GIZMO_COLOR = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: gizmo-color
spec:
  evaluation:
    mutateExisting:
      enabled: true
  matchConstraints:
    resourceRules:
      - apiGroups: [example.com]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [gizmos]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{spec: Object.spec{color: "red"}}
`;

const secret = (name: string, namespace: string): string =>
  JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name, namespace }, stringData: { k: "v" } });

async function labelOf(name: string, namespace: string, key = "foo"): Promise<string> {
  const out = await ok(["get", "secret", name, "-n", namespace, "-o", "json"]);
  return (JSON.parse(out) as { metadata: { labels?: Record<string, string> } }).metadata.labels?.[key] ?? "";
}

describe("MutatingPolicy mutateExisting in a cluster", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["apply", "-f", "-"], GENERATE_AS_BACKGROUND);
    // A short requeue interval, so the periodic requeue is seen within the test.
    await restartBylaw(current(), { extraArgs: `${GENERATE_AS_BACKGROUND_ARGS} --background-scan-interval 15s` });
    await ok(["apply", "-f", "-"], SECRET_GRANTS);
    await ok(["create", "namespace", "selected"]);
    await ok(["label", "namespace", "selected", "test=enabled"]);
    await ok(["create", "namespace", "other"]);
    for (const [name, ns] of [
      ["s1", "selected"],
      ["s2", "selected"],
      ["s3", "other"],
    ] as const)
      await ok(["create", "-f", "-"], secret(name, ns));
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("a trigger Namespace labels every Secret in the selected namespaces, not the others; the policy is Ready", async () => {
    await eventually("the policy admitted", 60_000, async () => {
      const r = await current().kubectl(["apply", "-f", "-"], MPOL);
      return r.code === 0 ? true : undefined;
    });
    let last = "";
    await eventually("the policy Ready", 60_000, async () => {
      const ready = await ok([
        "get",
        "mutatingpolicy",
        "label-secrets-on-namespace",
        "-o",
        "jsonpath={.status.conditionStatus.ready} {.status.conditionStatus.message}",
      ]);
      last = ready;
      return ready.startsWith("true") ? true : undefined;
    }).catch((e: unknown) => {
      throw new Error(`${String(e)}; Ready condition: ${last}`);
    });
    // The webhook registration follows the policy: the trigger is created, then updated until the work arrives.
    await ok(["create", "namespace", "trigger-ns"]);
    let round = 0;
    await eventually("both selected Secrets labelled", 90_000, async () => {
      await current().kubectl(["label", "namespace", "trigger-ns", `round=${round++}`, "--overwrite"]);
      await new Promise((r) => setTimeout(r, 2000));
      const labels = [await labelOf("s1", "selected"), await labelOf("s2", "selected")];
      return labels.every((l) => l === "bar") ? true : undefined;
    });
    assert.equal(await labelOf("s3", "other"), "", "a Secret outside the namespaceSelector is left alone");
  });

  test("targetMatchConstraints.expression: the Secret a trigger ConfigMap names is labelled, its neighbour is not; a trigger there before the policy counts too", async () => {
    // A trigger that exists when the policy appears: Kyverno's policy controller makes a request for it.
    await ok(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "pick", namespace: "other" },
        data: { target: "s3" },
      }),
    );
    await eventually("the policy admitted", 60_000, async () => {
      const r = await current().kubectl(["apply", "-f", "-"], PICK);
      return r.code === 0 ? true : undefined;
    });
    await eventually("other/s3 labelled picked=yes for the trigger that was there first", 90_000, async () =>
      (await labelOf("s3", "other", "picked")) === "yes" ? true : undefined,
    );
    const pick = JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "pick", namespace: "selected" },
      data: { target: "s2" },
    });
    await ok(["apply", "-f", "-"], pick);
    let round = 0;
    await eventually("s2 labelled picked=yes", 90_000, async () => {
      await current().kubectl(["annotate", "configmap", "pick", "-n", "selected", `round=${round++}`, "--overwrite"]);
      await new Promise((r) => setTimeout(r, 2000));
      return (await labelOf("s2", "selected", "picked")) === "yes" ? true : undefined;
    });
    assert.equal(await labelOf("s1", "selected", "picked"), "", "a Secret the expression does not name is left alone");
  });

  test("when a mutate-existing MutatingPolicy appears, the targets that exist already are patched, with no trigger", async () => {
    await ok(["create", "namespace", "scanned"]);
    await ok(["label", "namespace", "scanned", "scan=yes"]);
    await ok(["create", "-f", "-"], secret("old", "scanned"));
    await eventually("the policy admitted", 60_000, async () => {
      const r = await current().kubectl(["apply", "-f", "-"], SCAN);
      return r.code === 0 ? true : undefined;
    });
    await eventually("scanned/old labelled scanned=yes", 90_000, async () =>
      (await labelOf("old", "scanned", "scanned")) === "yes" ? true : undefined,
    );
    assert.equal(await labelOf("s3", "other", "scanned"), "", "a Secret outside the namespaceSelector is left alone");
  });

  test("every --background-scan-interval the policy's targets are patched again: a Secret whose namespace is selected later is patched with no admission of its own", async () => {
    await ok(["create", "namespace", "later"]);
    await ok(["create", "-f", "-"], secret("late", "later"));
    // The policy of the previous test is there; the namespace is selected only now (no Secret is admitted).
    await ok(["label", "namespace", "later", "scan=yes"]);
    await eventually("later/late labelled scanned=yes by the requeue", 90_000, async () =>
      (await labelOf("late", "later", "scanned")) === "yes" ? true : undefined,
    );
  });

  test("a custom resource's objects are targets too: the Widgets that exist when the policy appears are patched", async () => {
    await ok(["apply", "-f", "-"], WIDGETS);
    await ok(["wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=60s"]);
    await ok(["create", "namespace", "gadgets"]);
    await eventually("a Widget created", 60_000, async () => {
      const r = await current().kubectl(
        ["apply", "-f", "-"],
        JSON.stringify({
          apiVersion: "example.com/v1",
          kind: "Widget",
          metadata: { name: "w1", namespace: "gadgets" },
        }),
      );
      return r.code === 0 ? true : undefined;
    });
    await eventually("the policy admitted", 60_000, async () => {
      const r = await current().kubectl(["apply", "-f", "-"], WIDGET_SCAN);
      return r.code === 0 ? true : undefined;
    });
    await eventually("gadgets/w1 labelled scanned=yes", 90_000, async () => {
      const out = await ok([
        "get",
        "widgets.example.com",
        "w1",
        "-n",
        "gadgets",
        "-o",
        "jsonpath={.metadata.labels.scanned}",
      ]);
      return out.trim() === "yes" ? true : undefined;
    });
  });

  test("a target is typed with the cluster's OpenAPI v3: a field its CRD does not declare is the policy's error until the CRD declares it", async () => {
    await ok(["apply", "-f", "-"], gizmoCrd({ size: { type: "integer" } }));
    await ok(["apply", "-f", "-"], GIZMO_GRANT);
    await ok(["wait", "--for=condition=Established", "crd/gizmos.example.com", "--timeout=60s"]);
    await eventually("a Gizmo created", 60_000, async () => {
      const r = await current().kubectl(
        ["apply", "-f", "-"],
        JSON.stringify({
          apiVersion: "example.com/v1",
          kind: "Gizmo",
          metadata: { name: "g1", namespace: "gadgets" },
          spec: { size: 1 },
        }),
      );
      return r.code === 0 ? true : undefined;
    });
    await eventually("the policy admitted", 60_000, async () => {
      const r = await current().kubectl(["apply", "-f", "-"], GIZMO_COLOR);
      return r.code === 0 ? true : undefined;
    });
    const note = await eventually("the policy's error Event", 90_000, async () => {
      const events = JSON.parse(await ok(["get", "events.events.k8s.io", "-A", "-o", "json"])) as {
        items: { note?: string }[];
      };
      return events.items
        .map((e) => e.note ?? "")
        .find((n) => n.includes("gizmo-color") && n.includes("failed to mutate existing resource"));
    });
    // The controller's own evaluation errs (it writes nothing), as Kyverno's background controller does.
    assert.match(
      note,
      /^policy gizmo-color error: failed to mutate existing resource, rule \S*, response error: .*failed to convert patch object to typed object: \.spec\.color: field not declared in schema/,
    );
    const spec = async (): Promise<{ color?: string }> =>
      JSON.parse(await ok(["get", "gizmos.example.com", "g1", "-n", "gadgets", "-o", "jsonpath={.spec}"])) as {
        color?: string;
      };
    assert.equal((await spec()).color, undefined);
    await ok(["apply", "-f", "-"], gizmoCrd({ size: { type: "integer" }, color: { type: "string" } }));
    // The next periodic requeue (--background-scan-interval 15s) runs with the CRD's new schema.
    await eventually("gadgets/g1 given spec.color", 90_000, async () =>
      (await spec()).color === "red" ? true : undefined,
    );
  });
});
