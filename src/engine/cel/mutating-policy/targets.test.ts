/** A mutate-existing MutatingPolicy through the engine: its targets listed, decided and patched; what it cannot list is an error. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { err, ok } from "../../api/result.js";
import type { Resource } from "../../api/resource.js";
import { createEngine } from "../../engine.js";
import type { ExistingResources } from "../../generate/index.js";
import { mutateExistingRuleNames, mutateExistingScanView, mutateExistingView } from "../../kinds/mutate-existing.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());
const rules = (resource: string) => ({
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: [resource] }],
});
const addLabel = {
  patchType: "ApplyConfiguration",
  applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"foo": "bar"}}}' },
};

function mpol(spec: JsonObject, namespace?: string): CompiledPolicy {
  const r = engine.compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: namespace === undefined ? "MutatingPolicy" : "NamespacedMutatingPolicy",
    metadata: { name: "mp", ...(namespace === undefined ? {} : { namespace }) },
    spec: { evaluation: { mutateExisting: { enabled: true } }, mutations: [addLabel], ...spec },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

const ns = (name: string, labels: Record<string, string> = {}): Resource => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, labels },
});
const cm = (namespace: string, name: string, labels: Record<string, string> = {}): Resource => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { namespace, name, labels },
  data: {},
});

/** An in-memory cluster: what list and get read. */
function cluster(objects: readonly Resource[]): ExistingResources & { readonly lists: string[] } {
  const lists: string[] = [];
  const meta = (o: Resource) => o["metadata"] as { name: string; namespace?: string };
  return {
    lists,
    get: (_apiVersion, kind, namespace, name) =>
      ok(objects.find((o) => o["kind"] === kind && meta(o).name === name && (meta(o).namespace ?? "") === namespace)),
    list: (apiVersion, kind, namespace) => {
      lists.push(`${apiVersion} ${kind} ${namespace}`);
      return ok(objects.filter((o) => o["kind"] === kind && (namespace === "" || meta(o).namespace === namespace)));
    },
  };
}

const labelsOf = (r: Resource | undefined) => (r?.["metadata"] as JsonObject | undefined)?.["labels"];

describe("MutatingPolicy mutate-existing", () => {
  test("a trigger Namespace patches every ConfigMap in namespaces the targetMatchConstraints' namespaceSelector selects", () => {
    const p = mpol({
      matchConstraints: {
        ...rules("namespaces"),
        resourceRules: [{ ...rules("namespaces").resourceRules[0]!, resourceNames: ["trigger"] }],
      },
      targetMatchConstraints: { ...rules("configmaps"), namespaceSelector: { matchLabels: { test: "enabled" } } },
    });
    assert.deepEqual(mutateExistingRuleNames(p), [""]);
    const existing = cluster([ns("a", { test: "enabled" }), ns("b"), cm("a", "one"), cm("a", "two"), cm("b", "three")]);
    const r = engine.mutate(
      mutateExistingView(p),
      { resource: ns("trigger"), operation: "CREATE", namespaceLabels: {} },
      existing,
    );
    const patched = r.rules.map((x) => [x.rule, x.status, (x.patchedTarget?.["metadata"] as JsonObject)["name"]]);
    assert.deepEqual(patched, [
      ["", "pass", "one"],
      ["", "pass", "two"],
    ]);
    assert.deepEqual(labelsOf(r.rules[0]?.patchedTarget), { foo: "bar" });
    // The view leaves the trigger itself unpatched.
    assert.deepEqual(r.patchedResource, ns("trigger"));
  });

  test("a trigger the matchConstraints do not name brings no targets; matchConditions false brings none", () => {
    const p = mpol({ matchConstraints: rules("namespaces"), targetMatchConstraints: rules("configmaps") });
    const existing = cluster([cm("a", "one")]);
    const other = engine.mutate(
      mutateExistingView(p),
      { resource: cm("a", "x"), operation: "CREATE", namespaceLabels: {} },
      existing,
    );
    assert.deepEqual(other.rules, []);
    const never = mpol({
      matchConstraints: rules("namespaces"),
      matchConditions: [{ name: "never", expression: "false" }],
      targetMatchConstraints: rules("configmaps"),
    });
    const r = engine.mutate(
      mutateExistingView(never),
      { resource: ns("t"), operation: "CREATE", namespaceLabels: {} },
      existing,
    );
    assert.deepEqual(r.rules, []);
    assert.deepEqual(existing.lists, []);
  });

  test("targetMatchConditions decide each target (false: skip, as Kyverno answers), with object the target and request the trigger's admission request", () => {
    const p = mpol({
      matchConstraints: rules("namespaces"),
      targetMatchConstraints: rules("configmaps"),
      targetMatchConditions: [{ name: "same-name", expression: "object.metadata.name == request.name" }],
    });
    const existing = cluster([cm("a", "t"), cm("a", "other")]);
    const trigger = ns("t");
    const r = engine.mutate(
      mutateExistingView(p),
      {
        resource: trigger,
        operation: "CREATE",
        namespaceLabels: {},
        variables: { request: { operation: "CREATE", name: "t", object: trigger } },
      },
      existing,
    );
    assert.deepEqual(
      r.rules.map((x) => [x.status, (x.patchedTarget?.["metadata"] as JsonObject | undefined)?.["name"]]),
      [
        ["pass", "t"],
        ["skip", undefined],
      ],
    );
  });

  test("without targetMatchConstraints the targets are what matchConstraints name (same trigger and target)", () => {
    const p = mpol({ matchConstraints: rules("configmaps") });
    const existing = cluster([cm("a", "one"), cm("b", "two")]);
    const r = engine.mutate(
      mutateExistingView(p),
      { resource: cm("a", "one"), operation: "CREATE", namespaceLabels: {} },
      existing,
    );
    assert.deepEqual(
      r.rules.map((x) => x.status),
      ["pass", "pass"],
    );
    assert.deepEqual(existing.lists, ["v1 ConfigMap "]);
  });

  test("a namespaced policy lists targets in its own namespace only", () => {
    const p = mpol({ matchConstraints: rules("configmaps") }, "a");
    const existing = cluster([cm("a", "one"), cm("b", "two")]);
    const r = engine.mutate(
      mutateExistingView(p),
      { resource: cm("a", "one"), operation: "CREATE", namespaceLabels: {} },
      existing,
    );
    assert.deepEqual(existing.lists, ["v1 ConfigMap a"]);
    assert.equal(r.rules.length, 1);
  });

  test("a listing that fails, a resource Bylaw cannot name and targets from an expression are errors, never a pass", () => {
    const p = mpol({ matchConstraints: rules("namespaces"), targetMatchConstraints: rules("configmaps") });
    const refused: ExistingResources = {
      get: () => ok(undefined),
      list: () => err("forbidden", "configmaps is forbidden"),
    };
    const r = engine.mutate(
      mutateExistingView(p),
      { resource: ns("t"), operation: "CREATE", namespaceLabels: {} },
      refused,
    );
    assert.deepEqual(
      r.rules.map((x) => [x.status, x.message]),
      [["error", "failed to fetch targets v1 ConfigMap: configmaps is forbidden"]],
    );
    const custom = mpol({
      matchConstraints: rules("namespaces"),
      targetMatchConstraints: {
        resourceRules: [{ apiGroups: ["x.io"], apiVersions: ["v1"], operations: ["*"], resources: ["widgets"] }],
      },
    });
    const c = engine.mutate(
      mutateExistingView(custom),
      { resource: ns("t"), operation: "CREATE", namespaceLabels: {} },
      cluster([]),
    );
    assert.equal(c.rules[0]?.status, "error");
    assert.match(
      c.rules[0]?.message ?? "",
      /resource widgets \(x\.io\/v1\) is neither a built-in resource nor one the cluster serves/,
    );
    const expr = mpol({
      matchConstraints: rules("namespaces"),
      targetMatchConstraints: { expression: "[]" },
    });
    const e = engine.mutate(
      mutateExistingView(expr),
      { resource: ns("t"), operation: "CREATE", namespaceLabels: {} },
      cluster([]),
    );
    assert.equal(e.rules[0]?.status, "error");
    // As Kyverno's compiler: the expression must be a map(string, dyn), as resource.Get and resource.List return.
    assert.match(e.rules[0]?.message ?? "", /mp: spec\.targetMatchConstraints\.expression: output type must be a map$/);
  });

  test("custom resources: the kind of a listed resource and the resource of a kind an expression names come from the cluster's discovery (the port)", () => {
    const widget = (name: string): Resource => ({
      apiVersion: "x.io/v1",
      kind: "Widget",
      metadata: { namespace: "a", name },
      spec: {},
    });
    const served: ExistingResources = {
      ...cluster([ns("a"), widget("w1"), widget("w2")]),
      kindOf: (apiVersion, resource) => ok(apiVersion === "x.io/v1" && resource === "widgets" ? "Widget" : undefined),
      resourceOf: (apiVersion, kind) => ok(apiVersion === "x.io/v1" && kind === "Widget" ? "widgets" : undefined),
    };
    const widgets = {
      resourceRules: [{ apiGroups: ["x.io"], apiVersions: ["v1"], operations: ["*"], resources: ["widgets"] }],
    };
    const listed = engine.mutate(
      mutateExistingView(mpol({ matchConstraints: rules("namespaces"), targetMatchConstraints: widgets })),
      { resource: ns("t"), operation: "CREATE", namespaceLabels: {} },
      served,
    );
    assert.deepEqual(
      listed.rules.map((r) => [r.status, (r.patchedTarget?.["metadata"] as JsonObject | undefined)?.["name"]]),
      [
        ["pass", "w1"],
        ["pass", "w2"],
      ],
    );
    assert.deepEqual(labelsOf(listed.rules[0]?.patchedTarget), { foo: "bar" });
    const named = engine.mutate(
      mutateExistingView(
        mpol({
          matchConstraints: rules("namespaces"),
          targetMatchConstraints: {
            ...widgets,
            expression: '{"apiVersion": "x.io/v1", "kind": "Widget", "metadata": {"namespace": "a", "name": "w2"}}',
          },
        }),
      ),
      { resource: ns("t"), operation: "CREATE", namespaceLabels: {} },
      served,
    );
    assert.deepEqual(
      named.rules.map((r) => [r.status, (r.patchedTarget?.["metadata"] as JsonObject | undefined)?.["name"]]),
      [["pass", "w2"]],
    );
    // A kind the cluster does not serve either: an error naming it, never a pass.
    const unknown = engine.mutate(
      mutateExistingView(
        mpol({
          matchConstraints: rules("namespaces"),
          targetMatchConstraints: {
            resourceRules: [{ apiGroups: ["y.io"], apiVersions: ["v1"], operations: ["*"], resources: ["gadgets"] }],
          },
        }),
      ),
      { resource: ns("t"), operation: "CREATE", namespaceLabels: {} },
      served,
    );
    assert.equal(unknown.rules[0]?.status, "error");
    assert.match(
      unknown.rules[0]?.message ?? "",
      /gadgets \(y\.io\/v1\) is neither a built-in resource nor one the cluster serves/,
    );
  });

  test("targetMatchConstraints.expression: the objects it names (a resource.List's items, or one object) are read again, decided and patched", () => {
    const objects = [ns("a"), cm("a", "one"), cm("a", "two", { skip: "yes" }), cm("a", "three")];
    const existing = cluster(objects);
    // resource.List reads the cluster through the context port, as the controller's does.
    const ports = fakePorts();
    const engine = createEngine({
      ...ports,
      context: {
        ...ports.context,
        listResources: (r) => ok({ items: objects.filter((o) => o["kind"] === "ConfigMap" && r.namespace === "a") }),
      },
    });
    const listAll = mpol({
      matchConstraints: rules("namespaces"),
      targetMatchConstraints: {
        ...rules("configmaps"),
        objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
        expression: 'resource.List("v1", "configmaps", "a")',
      },
    });
    const trigger = { resource: ns("trigger"), operation: "CREATE" as const, namespaceLabels: {} };
    const r = engine.mutate(mutateExistingView(listAll), trigger, existing);
    assert.deepEqual(
      r.rules.map((x) => [x.status, (x.patchedTarget?.["metadata"] as JsonObject)["name"], labelsOf(x.patchedTarget)]),
      [
        ["pass", "one", { foo: "bar" }],
        ["pass", "three", { foo: "bar" }],
      ],
    );
    // One object, written by the expression: an identifier, read again (its data comes from the cluster, not CEL).
    const named = mpol({
      matchConstraints: rules("namespaces"),
      targetMatchConstraints: {
        ...rules("configmaps"),
        expression:
          '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one", "namespace": "a"}, "data": {"forged": "x"}}',
      },
    });
    const one = engine.mutate(mutateExistingView(named), trigger, existing).rules;
    assert.deepEqual(
      one.map((x) => [x.status, x.patchedTarget?.["data"]]),
      [["pass", {}]],
    );
    // A name that is not there is no target.
    const gone = mpol({
      matchConstraints: rules("namespaces"),
      targetMatchConstraints: {
        ...rules("configmaps"),
        expression: '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gone", "namespace": "a"}}',
      },
    });
    assert.deepEqual(engine.mutate(mutateExistingView(gone), trigger, existing).rules, []);
  });

  test("targetMatchConstraints.expression in a namespaced policy: a target in another namespace is an error, never written", () => {
    const existing = cluster([ns("team-a"), ns("team-b"), cm("team-a", "mine"), cm("team-b", "theirs")]);
    const p = mpol(
      {
        matchConstraints: rules("configmaps"),
        targetMatchConstraints: {
          ...rules("configmaps"),
          expression:
            '{"items": dyn([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mine", "namespace": "team-a"}}, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "theirs", "namespace": "team-b"}}])}',
        },
      },
      "team-a",
    );
    const r = engine.mutate(
      mutateExistingView(p),
      { resource: cm("team-a", "trigger"), operation: "CREATE", namespaceLabels: {} },
      existing,
    );
    assert.deepEqual(
      r.rules.map((x) => [x.status, (x.patchedTarget?.["metadata"] as JsonObject | undefined)?.["name"] ?? x.message]),
      [
        ["pass", "mine"],
        [
          "error",
          'spec.targetMatchConstraints.expression: target v1 ConfigMap team-b/theirs is outside the policy\'s namespace "team-a": a namespaced policy mutates only its own namespace',
        ],
      ],
    );
  });

  test("at admission (no view) the trigger is patched as before, and a policy without mutateExisting has no mutate-existing results", () => {
    const p = mpol({ matchConstraints: rules("configmaps") });
    const r = engine.mutate(p, { resource: cm("a", "one"), operation: "CREATE", namespaceLabels: {} });
    assert.deepEqual(
      r.rules.map((x) => [x.rule, x.status]),
      [["", "pass"]],
    );
    assert.deepEqual(labelsOf(r.patchedResource), { foo: "bar" });
    const plain = mpol({ matchConstraints: rules("configmaps"), evaluation: {} });
    assert.deepEqual(mutateExistingRuleNames(plain), []);
  });
});

describe("MutatingPolicy mutate-existing scan (the policy appears: its existing targets, no trigger)", () => {
  test("each target is matched by the target constraints and targetMatchConditions, not the trigger's, and patched", () => {
    const p = mpol({
      matchConstraints: rules("namespaces"),
      matchConditions: [{ name: "trigger-only", expression: "object.kind == 'Namespace'" }],
      targetMatchConstraints: { ...rules("configmaps"), namespaceSelector: { matchLabels: { test: "enabled" } } },
      targetMatchConditions: [
        { name: "not-kept", expression: "!has(object.metadata.labels) || !('keep' in object.metadata.labels)" },
      ],
    });
    const view = mutateExistingScanView(p);
    assert.ok(view !== undefined);
    const run = (target: Resource, labels: Record<string, string>) =>
      engine.mutate(view, { resource: target, operation: "UPDATE", namespaceLabels: labels });
    const selected = run(cm("a", "one"), { test: "enabled" });
    assert.deepEqual(
      selected.rules.map((r) => r.status),
      ["pass"],
    );
    assert.deepEqual(labelsOf(selected.patchedResource), { foo: "bar" });
    assert.deepEqual(run(cm("b", "two"), {}).rules, [], "outside the namespaceSelector: not a target");
    assert.deepEqual(
      run(cm("a", "kept", { keep: "yes" }), { test: "enabled" }).rules.map((r) => r.status),
      ["skip"],
      "targetMatchConditions false",
    );
    assert.deepEqual(run(ns("a"), {}).rules, [], "the trigger's kind is not a target");
  });

  test("no scan for a policy without mutateExisting, or whose targets an expression computes from a trigger", () => {
    assert.equal(mutateExistingScanView(mpol({ matchConstraints: rules("configmaps"), evaluation: {} })), undefined);
    assert.equal(
      mutateExistingScanView(
        mpol({
          matchConstraints: rules("namespaces"),
          targetMatchConstraints: { ...rules("configmaps"), expression: 'resource.List("v1", "configmaps", "a")' },
        }),
      ),
      undefined,
    );
  });
});
