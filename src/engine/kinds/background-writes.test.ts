/**
 * `backgroundWrites`: what a policy makes the background controller do for its author, whatever
 * its kind (tenant-isolation.md rule 4). A variable widens the ask (every namespace, resource or
 * object); a namespaced policy is asked about its own namespace only.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  backgroundWrites,
  cleanupDeletes,
  compileCleanupPolicy,
  createEngine,
  type BackgroundWrite,
  type JsonObject,
} from "../index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());

function writes(doc: JsonObject): BackgroundWrite[] {
  const c = engine.compile(doc);
  assert.ok(c.ok, JSON.stringify(c.ok ? "" : c.problems));
  return backgroundWrites(c.policy);
}

function kyverno(rules: JsonObject[], namespace?: string): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: namespace === undefined ? "ClusterPolicy" : "Policy",
    metadata: { name: "p", ...(namespace !== undefined ? { namespace } : {}) },
    spec: {
      rules: rules.map((r, i) => ({ name: `r${i}`, match: { any: [{ resources: { kinds: ["ConfigMap"] } }] }, ...r })),
    },
  };
}

const line = (w: BackgroundWrite): string =>
  `${w.path} ${w.what.by === "kind" ? w.what.kind : `${w.what.group}/${w.what.resource}`} ${w.verbs.join(",")} ns=${w.namespace}${w.name !== undefined ? ` name=${w.name}` : ""}`;

describe("backgroundWrites", () => {
  test("a generate with data: the target in its namespace; a variable namespace is every namespace", () => {
    const found = writes(
      kyverno([
        { generate: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "fixed", data: {} } },
        {
          generate: {
            apiVersion: "v1",
            kind: "Secret",
            name: "s",
            namespace: "{{request.object.metadata.name}}",
            data: {},
          },
        },
      ]),
    ).map(line);
    assert.deepEqual(found, [
      "spec.rules[0].generate v1/ConfigMap create,update,get,delete ns=fixed",
      "spec.rules[1].generate v1/Secret create,update,get,delete ns=",
    ]);
  });

  test("a clone: the source is read; a cloneList lists each kind where it clones from; foreach entries count", () => {
    const found = writes(
      kyverno([
        {
          generate: {
            apiVersion: "v1",
            kind: "Secret",
            name: "regcred",
            namespace: "{{request.object.metadata.name}}",
            clone: { namespace: "default", name: "regcred" },
          },
        },
        {
          generate: {
            namespace: "{{request.object.metadata.name}}",
            cloneList: {
              namespace: "src",
              kinds: ["v1/Secret", "v1/ConfigMap"],
              selector: { matchLabels: { a: "b" } },
            },
          },
        },
        {
          generate: {
            foreach: [
              {
                list: "request.object.data.names",
                apiVersion: "v1",
                kind: "ConfigMap",
                name: "{{element}}",
                namespace: "kube-system",
                data: {},
              },
            ],
          },
        },
      ]),
    ).map(line);
    assert.deepEqual(found, [
      "spec.rules[0].generate v1/Secret create,update,get,delete ns=",
      "spec.rules[0].generate.clone v1/Secret get ns=default name=regcred",
      "spec.rules[1].generate v1/Secret create,update,get,delete ns=",
      "spec.rules[1].generate.cloneList v1/Secret get,list ns=src",
      "spec.rules[1].generate v1/ConfigMap create,update,get,delete ns=",
      "spec.rules[1].generate.cloneList v1/ConfigMap get,list ns=src",
      "spec.rules[2].generate.foreach[0] v1/ConfigMap create,update,get,delete ns=kube-system",
    ]);
  });

  test("a namespaced Policy acts in its own namespace; a kind with a variable is every resource", () => {
    const found = writes(
      kyverno(
        [
          {
            generate: {
              apiVersion: "v1",
              kind: "{{request.object.data.kind}}",
              name: "x",
              namespace: "tenant-a",
              data: {},
            },
          },
        ],
        "tenant-a",
      ),
    ).map(line);
    assert.deepEqual(found, ["spec.rules[0].generate */* create,update,get,delete ns=tenant-a"]);
  });

  test("mutate-existing targets: get and update, by name when it has no variable", () => {
    const found = writes(
      kyverno([
        {
          mutate: {
            targets: [
              { apiVersion: "v1", kind: "Secret", namespace: "team", name: "one" },
              {
                apiVersion: "v1",
                kind: "ConfigMap",
                namespace: "{{request.namespace}}",
                name: "{{request.object.metadata.name}}",
              },
            ],
            patchStrategicMerge: { metadata: { labels: { a: "b" } } },
          },
        },
      ]),
    ).map(line);
    assert.deepEqual(found, [
      "spec.rules[0].mutate.targets[0] v1/Secret get,update ns=team name=one",
      "spec.rules[0].mutate.targets[1] v1/ConfigMap get,update ns=",
    ]);
  });

  test("a validate-only policy asks nothing", () => {
    assert.deepEqual(writes(kyverno([{ validate: { message: "m", pattern: { data: { a: "?*" } } } }])), []);
  });

  test("a GeneratingPolicy: every resource in its scope; a mutate-existing MutatingPolicy: its target resources", () => {
    const rules = {
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
    };
    const gpol = (namespace?: string): JsonObject => ({
      apiVersion: "policies.kyverno.io/v1",
      kind: namespace === undefined ? "GeneratingPolicy" : "NamespacedGeneratingPolicy",
      metadata: { name: "g", ...(namespace !== undefined ? { namespace } : {}) },
      spec: { matchConstraints: rules, generate: [{ expression: "true" }] },
    });
    assert.deepEqual(writes(gpol()).map(line), ["spec.generate */* create,update,get,delete ns="]);
    assert.deepEqual(writes(gpol("tenant-a")).map(line), ["spec.generate */* create,update,get,delete ns=tenant-a"]);
    const mpol = (existing: boolean): JsonObject => ({
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedMutatingPolicy",
      metadata: { name: "m", namespace: "tenant-a" },
      spec: {
        matchConstraints: rules,
        ...(existing
          ? {
              evaluation: { mutateExisting: { enabled: true } },
              targetMatchConstraints: {
                resourceRules: [
                  {
                    apiGroups: ["apps"],
                    apiVersions: ["v1"],
                    operations: ["CREATE"],
                    resources: ["deployments/scale"],
                  },
                ],
              },
            }
          : {}),
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' },
          },
        ],
      },
    });
    assert.deepEqual(writes(mpol(true)).map(line), [
      "spec.targetMatchConstraints apps/deployments get,update ns=tenant-a",
    ]);
    assert.deepEqual(writes(mpol(false)), [], "a MutatingPolicy that patches only at admission asks nothing");
  });
});

describe("cleanupDeletes: what a cleanup policy makes the cleanup controller list and delete", () => {
  test("a CleanupPolicy's kinds in its namespace; a ClusterCleanupPolicy's in every namespace", () => {
    const doc = (kind: string, namespace?: string): JsonObject => ({
      apiVersion: "kyverno.io/v2",
      kind,
      metadata: { name: "sweep", ...(namespace !== undefined ? { namespace } : {}) },
      spec: { schedule: "0 * * * *", match: { any: [{ resources: { kinds: ["Secret", "apps/v1/Deployment"] } }] } },
    });
    const namespaced = compileCleanupPolicy(doc("CleanupPolicy", "tenant-a"), engine.env);
    const cluster = compileCleanupPolicy(doc("ClusterCleanupPolicy"), engine.env);
    assert.ok(namespaced.ok && cluster.ok);
    assert.deepEqual(cleanupDeletes(namespaced.value).map(line), [
      "spec.match Secret list,delete ns=tenant-a",
      "spec.match apps/v1/Deployment list,delete ns=tenant-a",
    ]);
    assert.deepEqual(cleanupDeletes(cluster.value).map(line), [
      "spec.match Secret list,delete ns=",
      "spec.match apps/v1/Deployment list,delete ns=",
    ]);
  });

  test("a NamespacedDeletingPolicy's resourceRules; a policy that deletes nothing: none", () => {
    const deleting = engine.compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedDeletingPolicy",
      metadata: { name: "sweep", namespace: "tenant-a" },
      spec: {
        schedule: "0 * * * *",
        matchConstraints: {
          resourceRules: [
            { apiGroups: ["", "apps"], apiVersions: ["v1"], resources: ["configmaps", "deployments/scale"] },
          ],
        },
        conditions: [{ name: "c", expression: "true" }],
      },
    });
    assert.ok(deleting.ok, deleting.ok ? "" : JSON.stringify(deleting.problems));
    assert.deepEqual(cleanupDeletes(deleting.policy).map(line), [
      "spec.matchConstraints.resourceRules /configmaps list,delete ns=tenant-a",
      "spec.matchConstraints.resourceRules /deployments list,delete ns=tenant-a",
      "spec.matchConstraints.resourceRules apps/configmaps list,delete ns=tenant-a",
      "spec.matchConstraints.resourceRules apps/deployments list,delete ns=tenant-a",
    ]);
    const validate = engine.compile({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "v" },
      spec: {
        rules: [
          {
            name: "r",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            validate: { message: "m", pattern: { metadata: { name: "?*" } } },
          },
        ],
      },
    });
    assert.ok(validate.ok);
    assert.deepEqual(cleanupDeletes(validate.policy), []);
  });
});
