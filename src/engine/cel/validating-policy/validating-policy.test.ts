/** ValidatingPolicy through the engine: matchConstraints, matchConditions, variables, validations, results as Kyverno's CLI has them. */
import { compiledAction } from "../../policy/compiled-policy.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { EngineRequest } from "../../pipeline/types.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { deployment, pod } from "../../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
};

function vpol(spec: JsonObject, apiVersion = "policies.kyverno.io/v1"): CompiledPolicy {
  const r = engine.compile({
    apiVersion,
    kind: "ValidatingPolicy",
    metadata: { name: "vp" },
    spec: { matchConstraints: podRules, ...spec },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function run(p: CompiledPolicy, resource: JsonObject, extra: Partial<EngineRequest> = {}): [string, string, string][] {
  return engine
    .validate(p, { resource, operation: "CREATE", namespaceLabels: {}, ...extra })
    .rules.map((r) => [r.rule, r.status, r.message]);
}

const noLatest = {
  validations: [
    { expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message: "no latest tags" },
  ],
};
const latest = pod({ name: "b", containers: [{ name: "x", image: "nginx:latest" }] });

describe("ValidatingPolicy", () => {
  test("passes with 'success' and fails with the validation's message, in every apiVersion", () => {
    for (const v of ["policies.kyverno.io/v1alpha1", "policies.kyverno.io/v1beta1", "policies.kyverno.io/v1"]) {
      const p = vpol(noLatest, v);
      assert.deepEqual(run(p, pod({ name: "a" })), [["", "pass", "success"]]);
      assert.deepEqual(run(p, latest), [["", "fail", "no latest tags"]]);
    }
  });

  test("messageExpression wins; an empty message becomes Kyverno's default naming the index", () => {
    assert.deepEqual(
      run(
        vpol({
          validations: [
            { expression: "true" },
            { expression: "false", messageExpression: "'pod ' + object.metadata.name" },
          ],
        }),
        latest,
      ),
      [["", "fail", "pod b"]],
    );
    assert.deepEqual(run(vpol({ validations: [{ expression: "true" }, { expression: "false" }] }), latest), [
      ["", "fail", "CEL expression validation failed at index 1"],
    ]);
  });

  test("resources not in matchConstraints get no result; operations and excludeResourceRules count", () => {
    const p = vpol(noLatest);
    assert.deepEqual(run(p, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }), []);
    assert.deepEqual(run(p, latest, { operation: "DELETE", oldResource: latest }), []);
    const excluded = vpol({
      ...noLatest,
      matchConstraints: {
        ...podRules,
        excludeResourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"], resourceNames: ["b"] },
        ],
      },
    });
    assert.deepEqual(run(excluded, latest), []);
    assert.deepEqual(
      run(excluded, pod({ name: "c", containers: [{ name: "x", image: "nginx:latest" }] }))[0]?.[1],
      "fail",
    );
  });

  test("namespaceSelector reads the namespace's labels; objectSelector the object's", () => {
    const p = vpol({
      ...noLatest,
      matchConstraints: {
        ...podRules,
        namespaceSelector: { matchLabels: { env: "prod" } },
        objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
      },
    });
    assert.deepEqual(run(p, latest, { namespaceLabels: { env: "dev" } }), []);
    assert.deepEqual(run(p, latest, { namespaceLabels: { env: "prod" } })[0]?.[1], "fail");
    assert.deepEqual(run(p, pod({ name: "s", labels: { skip: "1" } }), { namespaceLabels: { env: "prod" } }), []);
  });

  test("matchConditions not met is a skip; variables are read lazily and may name later ones", () => {
    const p = vpol({
      matchConditions: [{ name: "named", expression: "object.metadata.name != 'a'" }],
      variables: [
        { name: "images", expression: "variables.containers.map(c, c.image)" },
        { name: "containers", expression: "object.spec.containers" },
        { name: "broken", expression: "object.spec.nope" },
      ],
      validations: [{ expression: "variables.images.all(i, !i.endsWith(':latest'))", message: "latest" }],
    });
    assert.deepEqual(run(p, pod({ name: "a" })), [["", "skip", "skip"]]);
    assert.deepEqual(run(p, latest), [["", "fail", "latest"]]);
  });

  test("a failing or erring validation's index and the audit annotations are the result's properties, as Kyverno's vpol engine gives them", () => {
    const properties = (spec: JsonObject): unknown =>
      engine.validate(vpol(spec), { resource: latest, operation: "CREATE", namespaceLabels: {} }).rules[0]?.properties;
    const annotations = [
      { key: "who", valueExpression: "string(object.metadata.name)" },
      { key: "empty", valueExpression: "''" },
    ];
    assert.deepEqual(
      properties({ validations: [{ expression: "true" }, { expression: "false" }], auditAnnotations: annotations }),
      { "cel.validationIndex": "1", who: "b" },
    );
    assert.deepEqual(properties({ validations: [{ expression: "true" }], auditAnnotations: annotations }), {
      who: "b",
    });
    assert.equal(properties({ validations: [{ expression: "true" }] }), undefined);
    assert.deepEqual(properties({ validations: [{ expression: "true" }, { expression: "object.spec.nope == 1" }] }), {
      "cel.validationIndex": "1",
    });
  });

  test("an error of the evaluation itself is rule 'evaluation', 'failed to load context: …', in cel-go's words; a null audit annotation is an error, as Kyverno converts it to a string", () => {
    // Checked beside kyverno apply -p v1.19.0.
    const rows = (spec: JsonObject) =>
      engine
        .validate(vpol(spec), { resource: latest, operation: "CREATE", namespaceLabels: {} })
        .rules.map((r) => [r.rule, r.status, r.message, r.properties?.["cel.validationIndex"]]);
    assert.deepEqual(
      rows({
        matchConditions: [{ name: "mc", expression: "object.spec.nope == 1" }],
        validations: [{ expression: "true" }],
      }),
      [["evaluation", "error", "failed to load context: no such key: nope", undefined]],
    );
    const nullAnnotation = [{ key: "k", valueExpression: "null" }];
    const conversion =
      "failed to convert auditAnnotation 'k' expression: type conversion error from 'null_type' to 'string'";
    assert.deepEqual(rows({ validations: [{ expression: "true" }], auditAnnotations: nullAnnotation }), [
      ["evaluation", "error", `failed to load context: ${conversion}`, undefined],
    ]);
    assert.deepEqual(
      rows({ validations: [{ expression: "false", message: "nope" }], auditAnnotations: nullAnnotation }),
      [["", "error", `error: ${conversion}`, "0"]],
    );
    assert.deepEqual(
      rows({
        validations: [{ expression: "true" }],
        auditAnnotations: [{ key: "k", valueExpression: "string(object.spec.nope)" }],
      }),
      [
        [
          "evaluation",
          "error",
          "failed to load context: failed to evaluate auditAnnotation 'k': no such key: nope",
          undefined,
        ],
      ],
    );
  });

  test("an expression of the wrong type exactly (dyn where cel-go infers dyn) fails to compile, as Kyverno's compiler refuses it", () => {
    const message = (spec: JsonObject): string => run(vpol(spec), latest)[0]?.[2] ?? "";
    assert.match(
      message({ validations: [{ expression: "object.metadata.labels" }] }),
      /spec\.validations\[0\]\.expression: compilation failed: output is expected to be of type bool$/,
    );
    // A variable typed by an expression that reads object is dyn in cel-go too.
    assert.match(
      message({
        variables: [{ name: "flag", expression: "object.spec.flag" }],
        validations: [{ expression: "variables.flag" }],
      }),
      /output is expected to be of type bool$/,
    );
    assert.match(
      message({ validations: [{ expression: "false", messageExpression: "object.metadata.name" }] }),
      /spec\.validations\[0\]\.messageExpression: compilation failed: output is expected to be of type string$/,
    );
    assert.match(
      message({
        validations: [{ expression: "true" }],
        auditAnnotations: [{ key: "a", valueExpression: "object.metadata.name" }],
      }),
      /spec\.auditAnnotations\[0\]\.valueExpression: compilation failed: output is expected to be either of type string or null_type$/,
    );
    assert.match(
      message({ validations: [{ expression: "true" }], auditAnnotations: [{ key: "a", valueExpression: "1" }] }),
      /output is expected to be either of type string or null_type$/,
    );
    // Typed exactly: string(), a comparison; a variable whose own expression reads another variable may be typed.
    assert.deepEqual(
      run(
        vpol({
          variables: [
            { name: "big", expression: "size(object.spec.containers) > 0" },
            { name: "any", expression: "variables.big" },
          ],
          validations: [{ expression: "variables.any", messageExpression: "string(object.metadata.name)" }],
          auditAnnotations: [{ key: "who", valueExpression: "string(object.metadata.name)" }],
        }),
        latest,
      ),
      [["", "pass", "success"]],
    );
  });

  test("an evaluation error is an error result, never a pass", () => {
    const [row] = run(vpol({ validations: [{ expression: "object.spec.nope == 1" }] }), latest);
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /^error: /);
  });

  test("autogen: a policy on v1 pods also checks pod controllers at their pod template, as Kyverno rewrites it", () => {
    const p = vpol({
      ...noLatest,
      matchConditions: [{ name: "not-system", expression: "object.metadata.namespace != 'kube-system'" }],
    });
    assert.deepEqual(run(p, deployment("ok")), [["", "pass", "success"]]);
    assert.deepEqual(run(p, deployment("bad", {}, [{ name: "x", image: "nginx:latest" }])), [
      ["", "fail", "no latest tags"],
    ]);
    const cron = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "c", namespace: "default" },
      spec: {
        schedule: "* * * * *",
        jobTemplate: { spec: { template: { spec: { containers: [{ name: "x", image: "a:latest" }] } } } },
      },
    };
    assert.deepEqual(run(p, cron), [["", "fail", "no latest tags"]]);
    const onlyCron = vpol({ ...noLatest, autogen: { podControllers: { controllers: ["cronjobs"] } } });
    assert.deepEqual(run(onlyCron, deployment("bad", {}, [{ name: "x", image: "nginx:latest" }])), []);
    const selective = vpol({
      ...noLatest,
      matchConstraints: { ...podRules, objectSelector: { matchLabels: { a: "b" } } },
    });
    assert.deepEqual(run(selective, deployment("bad", {}, [{ name: "x", image: "nginx:latest" }])), []);
  });

  test("a kind without a known resource name matches a rule naming its guessed plural; another rule is an error naming it", () => {
    const naming = (resource: string) =>
      vpol({
        ...noLatest,
        matchConstraints: {
          resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: [resource] }],
        },
      });
    const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } };
    // Kyverno's CLI guesses widgets for Widget: the rule applies (and this policy's validation reads spec).
    const [guessed] = run(naming("widgets"), widget);
    assert.deepEqual(guessed?.slice(1), ["error", "error: no such key: spec"]);
    const [row] = run(naming("gadgets"), widget);
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /kind Widget \(example.com\/v1\) is not a built-in kind/);
  });

  test("an unknown kind of the core group (v1 BuildConfig) is none of its resources: no match where the rules name only core resources, else an error", () => {
    const buildConfig = { apiVersion: "v1", kind: "BuildConfig", metadata: { name: "b", namespace: "ci" } };
    assert.deepEqual(run(vpol(noLatest), buildConfig), [], "podRules name only pods");
    const rule = (apiGroups: string[], resources: string[]) =>
      vpol({
        ...noLatest,
        matchConstraints: { resourceRules: [{ apiGroups, apiVersions: ["*"], operations: ["*"], resources }] },
      });
    assert.deepEqual(run(rule([""], ["pods", "services/status"]), buildConfig), []);
    assert.equal(run(rule([""], ["pods", "buildconfigs"]), buildConfig)[0]?.[1], "error", "it may be buildconfigs");
    const podMetrics = {
      apiVersion: "metrics.k8s.io/v1beta1",
      kind: "PodMetrics",
      metadata: { name: "p", namespace: "a" },
    };
    assert.equal(run(rule(["*"], ["pods"]), podMetrics)[0]?.[1], "error", "another group may call its kind pods");
  });

  test("an expression that does not compile makes matched resources an error naming the field and position", () => {
    const [row] = run(vpol({ validations: [{ expression: "object.spec.containers.all(c, " }] }), latest);
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /policy vp: spec\.validations\[0\]\.expression: compilation failed: .*1:/);
  });

  test("evaluation.mode JSON matches no Kubernetes resource (it runs on JSON payloads only)", () => {
    assert.deepEqual(run(vpol({ ...noLatest, evaluation: { mode: "JSON" } }), latest), []);
  });

  test("a NamespacedValidatingPolicy sees only resources of its own namespace", () => {
    const r = engine.compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedValidatingPolicy",
      metadata: { name: "nvp", namespace: "team" },
      spec: { matchConstraints: podRules, ...noLatest },
    });
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.policy.namespace, "team");
    assert.deepEqual(
      run(r.policy, pod({ name: "x", namespace: "other", containers: [{ name: "x", image: "a:latest" }] })),
      [],
    );
    assert.deepEqual(
      run(r.policy, pod({ name: "x", namespace: "team", containers: [{ name: "x", image: "a:latest" }] })),
      [["", "fail", "no latest tags"]],
    );
  });

  test("validationActions: Deny enforces, Audit and Warn do not; an invalid action fails the load", () => {
    assert.equal(compiledAction(vpol({ ...noLatest, validationActions: ["Deny"] })), "Enforce");
    assert.equal(compiledAction(vpol({ ...noLatest, validationActions: ["Audit", "Warn"] })), "Audit");
    assert.equal(
      engine.compile({
        apiVersion: "policies.kyverno.io/v1",
        kind: "ValidatingPolicy",
        metadata: { name: "x" },
        spec: { matchConstraints: podRules, validationActions: ["Block"] },
      }).ok,
      false,
    );
  });
  test("namespaceObject is the request's Namespace when given whole (annotations too), else name and labels", () => {
    const p = vpol({
      validations: [
        {
          expression: "namespaceObject.metadata.?annotations['owner'].orValue('none') == 'team-a'",
          messageExpression:
            "'owner: ' + namespaceObject.metadata.?annotations['owner'].orValue('none') + ', ' + namespaceObject.metadata.name",
        },
      ],
    });
    const inNs = pod({ name: "p", namespace: "apps" });
    const namespaceObject = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "apps", annotations: { owner: "team-a" } },
    };
    assert.deepEqual(run(p, inNs, { namespaceObject }), [["", "pass", "success"]]);
    assert.deepEqual(run(p, inNs, { namespaceLabels: { owner: "team-a" } }), [["", "fail", "owner: none, apps"]]);
  });

  test("namespaceObject null (the caller has no Namespace, as Kyverno's CLI without a values entry): null here, built from the labels for validate.cel", () => {
    const p = vpol({ validations: [{ expression: "namespaceObject.metadata.name != 'default'", message: "m" }] });
    const inNs = pod({ name: "p", namespace: "apps" });
    assert.deepEqual(run(p, inNs, { namespaceObject: null }), [["", "error", "error: no such key: metadata"]]);
    const isNull = vpol({ validations: [{ expression: "namespaceObject == null", message: "not null" }] });
    assert.deepEqual(run(isNull, inNs, { namespaceObject: null }), [["", "pass", "success"]]);
    assert.deepEqual(run(isNull, inNs), [["", "fail", "not null"]]);
    const classic = engine.compile({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "c" },
      spec: {
        rules: [
          {
            name: "r",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            validate: {
              cel: { expressions: [{ expression: "namespaceObject.metadata.name == 'apps'", message: "m" }] },
            },
          },
        ],
      },
    });
    assert.ok(classic.ok);
    assert.deepEqual(run(classic.policy, inNs, { namespaceObject: null }), [
      ["r", "pass", "Validation rule 'r' passed."],
    ]);
  });

  test("spec.paramKind/paramRef are not ValidatingPolicy fields in Kyverno 1.19: the policy is invalid, naming the field", () => {
    for (const extra of [
      { paramKind: { apiVersion: "v1", kind: "ConfigMap" } },
      { paramRef: { name: "limits", parameterNotFoundAction: "Deny" } },
    ]) {
      const r = engine.compile({
        apiVersion: "policies.kyverno.io/v1",
        kind: "ValidatingPolicy",
        metadata: { name: "vp" },
        spec: { matchConstraints: podRules, ...noLatest, ...extra },
      });
      assert.equal(r.ok, false);
      if (r.ok) continue;
      const field = Object.keys(extra)[0] ?? "";
      assert.equal(r.problems[0]?.path, `spec.${field}`);
      assert.match(r.problems[0]?.message ?? "", /^field not declared in schema; .*no parameter resources/);
    }
  });

  test("any other spec field the CRD does not declare fails the load with a near name", () => {
    const r = engine.compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedValidatingPolicy",
      metadata: { name: "vp", namespace: "a" },
      spec: { matchConstraints: podRules, validation: noLatest.validations },
    });
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.deepEqual(
        r.problems.map((p) => `${p.path}: ${p.message}`),
        ['spec.validation: field not declared in schema; did you mean "validations"?'],
      );
  });

  test("`params` is not a variable of a ValidatingPolicy (Kyverno declares none): reading it does not compile", () => {
    const [row] = run(vpol({ validations: [{ expression: "params == null" }] }), latest);
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /spec\.validations\[0\]\.expression: compilation failed: .*params/);
  });
});
