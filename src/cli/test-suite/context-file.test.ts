/** `bylaw test` with a test's `context` file and `clusterResources`: objects and image data the policies read offline. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { loadSuiteCluster } from "./context-file.js";
import { runSuite } from "./run-suite.js";

const classic = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: allowed-teams}
spec:
  rules:
    - name: team
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: teams
          configMap: {name: teams, namespace: platform}
      validate:
        message: the team is not allowed
        deny:
          conditions:
            any:
              - {key: "{{ request.object.metadata.labels.team }}", operator: AnyNotIn, value: "{{ teams.data.allowed | split(@, ',') }}"}
`;
const pods = `apiVersion: v1
kind: Pod
metadata: {name: good, namespace: default, labels: {team: a}}
spec: {containers: [{name: c, image: busybox:1.35}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: default, labels: {team: z}}
spec: {containers: [{name: c, image: busybox:1.28}]}
`;
const teams = `apiVersion: v1
kind: ConfigMap
metadata: {name: teams, namespace: platform}
data: {allowed: "a,b"}
`;
const suite = (extra: string, policy = "allowed-teams", rule = "team") => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: s}
policies: [policy.yaml]
resources: [pods.yaml]
${extra}
results:
  - {policy: ${policy}, rule: "${rule}", resources: [good], kind: Pod, result: pass}
  - {policy: ${policy}, rule: "${rule}", resources: [bad], kind: Pod, result: fail}
`;

async function run(files: Record<string, string>) {
  const dir = tempTree(files);
  return runSuite(join(dir, "kyverno-test.yaml"), offlineEngine);
}

describe("bylaw test: context file and clusterResources", () => {
  test("a clusterResources file of Kyverno's ClusterResource documents gives its spec.resources", async () => {
    const dir = tempTree({
      "cluster.yaml": JSON.stringify({
        apiVersion: "cli.kyverno.io/v1alpha1",
        kind: "ClusterResource",
        metadata: { name: "cluster" },
        spec: {
          resources: [
            { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } },
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "limits", namespace: "team" },
              data: { max: "2" },
            },
          ],
        },
      }),
    });
    const loaded = await loadSuiteCluster(dir, undefined, ["cluster.yaml"]);
    assert.deepEqual(loaded.errors, []);
    assert.deepEqual(
      loaded.cluster.resources.map((o) => o["kind"]),
      ["Namespace", "ConfigMap"],
    );
  });

  test("clusterResources answer a classic configMap context entry", async () => {
    const r = await run({
      "policy.yaml": classic,
      "pods.yaml": pods,
      "teams.yaml": teams,
      "kyverno-test.yaml": suite("clusterResources: [teams.yaml]"),
    });
    assert.equal(r.error, undefined);
    assert.deepEqual(
      r.results.map((x) => [x.resource, x.ok, x.actual]),
      [
        ["good", true, "pass"],
        ["bad", true, "fail"],
      ],
    );
  });

  test("without them the same entry is an error naming it, never a pass", async () => {
    const r = await run({ "policy.yaml": classic, "pods.yaml": pods, "kyverno-test.yaml": suite("") });
    assert.deepEqual(
      r.results.map((x) => x.actual),
      ["error", "error"],
    );
    assert.match(r.results[0]?.message ?? "", /teams/);
  });

  test("a context file gives objects and image data, as Kyverno's CLI reads them", async () => {
    const dir = tempTree({
      "context.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Context
metadata: {name: context}
spec:
  resources:
    - ${JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "teams", namespace: "platform" }, data: { allowed: "a" } })}
  images:
    - image: busybox:1.35
      config: {User: nobody}
`,
    });
    const loaded = await loadSuiteCluster(dir, "context.yaml", []);
    assert.deepEqual(loaded.errors, []);
    assert.equal(loaded.cluster.resources.length, 1);
    assert.deepEqual(loaded.cluster.images["busybox:1.35"], {
      image: "busybox:1.35",
      resolvedImage: "",
      registry: "",
      repository: "",
      config: { User: "nobody" },
    });
  });

  test("a ValidatingPolicy reads the context file's objects (resource.Get) and image data (image.GetMetadata)", async () => {
    const vpol = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: vp}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  variables:
    - {name: teams, expression: 'resource.Get("v1", "configmaps", "platform", "teams").data.allowed.split(",")'}
  validations:
    - expression: object.metadata.labels.team in variables.teams
      message: the team is not allowed
    - expression: object.spec.containers.all(c, !has(image.GetMetadata(c.image).config.Volumes))
      message: images with volumes are not allowed
`;
    const context = `apiVersion: cli.kyverno.io/v1alpha1
kind: Context
metadata: {name: c}
spec:
  resources:
    - ${JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "teams", namespace: "platform" }, data: { allowed: "a,z" } })}
  images:
    - {image: "busybox:1.35", config: {}}
    - {image: "busybox:1.28", config: {Volumes: {"/data": {}}}}
`;
    const r = await run({
      "policy.yaml": vpol,
      "pods.yaml": pods,
      "context.yaml": context,
      "kyverno-test.yaml": suite("context: context.yaml", "vp", ""),
    });
    assert.equal(r.error, undefined);
    assert.deepEqual(
      r.results.map((x) => [x.resource, x.actual, x.message]),
      [
        ["good", "pass", "success"],
        ["bad", "fail", "images with volumes are not allowed"],
      ],
    );
    const without = await run({ "policy.yaml": vpol, "pods.yaml": pods, "kyverno-test.yaml": suite("", "vp", "") });
    assert.deepEqual(
      without.results.map((x) => x.actual),
      ["error", "error"],
    );
    assert.match(without.results[0]?.message ?? "", /failed to get resource: configmaps "teams" not found/);
  });

  test("a resource without a namespace is in 'default', as Kyverno's CLI loads it; a ValidatingPolicy's namespaceObject is the values file's Namespace, else null", async () => {
    const vpol = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: no-default}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
    - expression: namespaceObject.metadata.name != 'default' && object.metadata.namespace != 'default'
      message: the default namespace is not allowed
`;
    const twoPods = `apiVersion: v1
kind: Pod
metadata: {name: good, namespace: team-a}
spec: {containers: [{name: c, image: busybox:1.35}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec: {containers: [{name: c, image: busybox:1.35}]}
`;
    // Kyverno's CLI gives these kinds a Namespace from the values file only: for team-a (not listed)
    // namespaceObject is null, so reading its metadata is an error, as in Kyverno v1.19.
    const r = await run({
      "policy.yaml": vpol,
      "pods.yaml": twoPods,
      "kyverno-test.yaml": suite("", "no-default", ""),
    });
    assert.deepEqual(
      r.results.map((x) => [x.resource, x.actual, x.message]),
      [
        ["good", "error", "error: no such key: metadata"],
        ["bad", "fail", "the default namespace is not allowed"],
      ],
    );
    const listed = await run({
      "policy.yaml": vpol,
      "pods.yaml": twoPods,
      "values.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Value
metadata: {name: v}
namespaces:
  - {apiVersion: v1, kind: Namespace, metadata: {name: team-a}}
  - {apiVersion: v1, kind: Namespace, metadata: {name: default}}
`,
      "kyverno-test.yaml": suite("variables: values.yaml", "no-default", ""),
    });
    assert.deepEqual(
      listed.results.map((x) => [x.resource, x.actual, x.message]),
      [
        ["good", "pass", "success"],
        ["bad", "fail", "the default namespace is not allowed"],
      ],
    );
  });

  test("a context file of another kind, or a missing one, fails the suite with the file named", async () => {
    const dir = tempTree({ "context.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n" });
    assert.match(
      (await loadSuiteCluster(dir, "context.yaml", [])).errors.join(),
      /context: context.yaml: expected kind Context, got "ConfigMap"/,
    );
    const r = await run({
      "policy.yaml": classic,
      "pods.yaml": pods,
      "kyverno-test.yaml": suite("context: nowhere.yaml"),
    });
    assert.match(r.error ?? "", /context: .*nowhere.yaml/);
  });
});

describe("bylaw test: a ClusterResource's spec.crds", () => {
  const vpol = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: small-widgets}
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}]
  validations:
    - expression: "object.spec.size <= 3"
      message: widgets are at most 3
`;
  const widgets = `apiVersion: example.com/v1
kind: Widget
metadata: {name: small, namespace: shop}
spec: {size: 1}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: big, namespace: shop}
spec: {size: 5}
`;
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`;
  const widgetSuite = (extra: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: w}
policies: [policy.yaml]
resources: [widgets.yaml]
${extra}
results:
  - {policy: small-widgets, resources: [small], kind: Widget, result: pass}
  - {policy: small-widgets, resources: [big], kind: Widget, result: fail}
`;
  const cluster = (crds: string) =>
    `apiVersion: cli.kyverno.io/v1alpha1\nkind: ClusterResource\nmetadata: {name: c}\nspec: {crds: ${crds}}\n`;

  test("name a custom kind's API resource, as --crd-paths does in apply: resourceRules on widgets decide", async () => {
    const r = await run({
      "policy.yaml": vpol,
      "widgets.yaml": widgets,
      "crds/widget.yaml": crd,
      "cluster.yaml": cluster("[crds/widget.yaml]"),
      "kyverno-test.yaml": widgetSuite("clusterResources: [cluster.yaml]"),
    });
    assert.equal(r.error, undefined);
    assert.deepEqual(
      r.results.map((x) => [x.resource, x.ok, x.actual]),
      [
        ["small", true, "pass"],
        ["big", true, "fail"],
      ],
    );
  });

  test("without them a rule naming another plural than the guessed one is an error naming the kind and where its CRD goes; a bad CRD fails the suite", async () => {
    // Widget's guessed plural is widgets (which would decide, as Kyverno's CLI guesses); a rule naming
    // `gizmos` for it cannot tell a wrong guess from a miss.
    const gizmos = vpol.replace("resources: [widgets]", "resources: [gizmos]");
    const r = await run({ "policy.yaml": gizmos, "widgets.yaml": widgets, "kyverno-test.yaml": widgetSuite("") });
    assert.deepEqual(
      r.results.map((x) => x.actual),
      ["error", "error"],
    );
    assert.match(r.results[0]?.message ?? "", /kind Widget .*clusterResources file's spec\.crds/);
    const bad = await run({
      "policy.yaml": vpol,
      "widgets.yaml": widgets,
      "crds/widget.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
      "cluster.yaml": cluster("[crds/widget.yaml]"),
      "kyverno-test.yaml": widgetSuite("clusterResources: [cluster.yaml]"),
    });
    assert.match(
      bad.error ?? "",
      /clusterResources: spec\.crds: .*widget\.yaml: document 1: not an apiextensions\.k8s\.io\/v1 CustomResourceDefinition/,
    );
  });
});
