/** The webhook configurations registered for a policy set: one assertion per rule of Kyverno's registration. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { buildConfigurations, MATCH_CONDITIONS, OWN_OBJECTS_CONDITION } from "./build-configurations.js";
import type { RegistrationTarget, RuleWithOperations, Webhook } from "../../controllers/registration/types.js";
import { timeoutProblems, type TimeoutGroups, withEveryTimeout } from "../admission/webhook-groups.js";

const engine = createEngine(fakePorts());
const compile = (doc: JsonObject): CompiledPolicy => {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
};
const validate = { message: "m", pattern: { metadata: { labels: { app: "?*" } } } };
const rule = (match: JsonObject, extra: JsonObject = {}): JsonObject => ({ name: "r", match, validate, ...extra });
const kinds = (...k: string[]): JsonObject => ({ any: [{ resources: { kinds: k } }] });
const policy = (rules: JsonObject[], spec: JsonObject = {}, name = "p"): CompiledPolicy =>
  compile(clusterPolicy(name, rules, { validationFailureAction: "Enforce", ...spec }));
const service: RegistrationTarget = {
  endpoint: { kind: "service", name: "bylaw", namespace: "bylaw", port: 443 },
  caPem: "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n",
  ownNamespace: "bylaw",
};
const defaults: TimeoutGroups = { defaultSeconds: 10, extra: [] };

const build = (policies: CompiledPolicy[], target = service, groups = defaults) =>
  buildConfigurations(policies, groups, target);
const only = (hooks: readonly Webhook[], name: string): Webhook => {
  const w = hooks.find((h) => h.name === name);
  assert.ok(w, `no webhook ${name} in ${hooks.map((h) => h.name).join(", ")}`);
  return w;
};
/** "group/version/resource@scope:OPS" per resource, sorted: easy to compare. */
const flat = (rules: readonly RuleWithOperations[]): string[] =>
  rules
    .flatMap((r) =>
      r.resources.map(
        (res) => `${r.apiGroups.join(",")}/${r.apiVersions.join(",")}/${res}@${r.scope}:${r.operations.join(",")}`,
      ),
    )
    .sort();

describe("registration: rules narrowed to what the policies match", () => {
  test("a Pod policy registers pods (and pods/ephemeralcontainers) with the validate defaults, plus its autogen pod controllers (at the apiVersion autogen writes)", () => {
    const c = build([policy([rule(kinds("Pod"))])]);
    const got = flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules);
    const ops = "CREATE,UPDATE,DELETE,CONNECT";
    for (const r of [
      "/*/pods@Namespaced",
      "/*/pods/ephemeralcontainers@Namespaced",
      "apps/v1/deployments@Namespaced",
      "apps/v1/daemonsets@Namespaced",
      "apps/v1/statefulsets@Namespaced",
      "apps/v1/replicasets@Namespaced",
      "batch/v1/jobs@Namespaced",
      "batch/v1/cronjobs@Namespaced",
      "/v1/replicationcontrollers@Namespaced",
    ]) {
      assert.ok(got.includes(`${r}:${ops}`), `${r} missing from ${got.join("\n")}`);
    }
    assert.ok(
      !got.some((g) => g.includes("configmaps") || g.startsWith("*/")),
      `nothing beyond Pods and their controllers: ${got.join("\n")}`,
    );
    assert.deepEqual(c.mutating.webhooks, [], "a validate-only set needs no mutating webhook");
  });

  test("operations named in match narrow the rule; exclude.any with only operations removes them", () => {
    const c = build([
      policy([
        rule(
          { any: [{ resources: { kinds: ["ConfigMap"], operations: ["CREATE", "DELETE"] } }] },
          { exclude: { any: [{ resources: { operations: ["DELETE"] } }] } },
        ),
      ]),
    ]);
    assert.deepEqual(flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules), [
      "/*/configmaps@Namespaced:CREATE",
    ]);
  });

  test("an exclude.any entry that also names namespaces does not narrow the webhook (it is decided per request)", () => {
    const c = build([
      policy([
        rule(kinds("ConfigMap"), { exclude: { any: [{ resources: { kinds: ["ConfigMap"], namespaces: ["x"] } }] } }),
      ]),
    ]);
    assert.deepEqual(flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules), [
      "/*/configmaps@Namespaced:CREATE,UPDATE,DELETE,CONNECT",
    ]);
  });

  test("subresources and CONNECT: Pod/exec becomes pods/exec; a group/version selector keeps its group and version", () => {
    const c = build([
      policy([
        rule({
          any: [
            { resources: { kinds: ["Pod/exec"], operations: ["CONNECT"] } },
            { resources: { kinds: ["apps/v1/Deployment/scale"] } },
          ],
        }),
      ]),
    ]);
    const got = flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules);
    assert.ok(got.includes("/*/pods/exec@Namespaced:CONNECT"), got.join("\n"));
    assert.ok(got.includes("apps/v1/deployments/scale@Namespaced:CREATE,UPDATE,DELETE,CONNECT"), got.join("\n"));
  });

  test("wildcard kinds stay wide; cluster-scoped kinds get scope Cluster", () => {
    // Kind * stands alone in its list and only with background off (Kyverno's wildcard checks).
    const c = build([
      policy([rule(kinds("*")), rule(kinds("Namespace"), { name: "ns" })], { background: false }, "wide"),
    ]);
    const got = flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules);
    assert.ok(got.includes("*/*/*@*:CREATE,UPDATE,DELETE,CONNECT"), got.join("\n"));
    assert.ok(got.includes("/*/namespaces@Cluster:CREATE,UPDATE,DELETE,CONNECT"), got.join("\n"));
  });

  test("a kind Bylaw does not know is registered for its whole group, never dropped, with a note", () => {
    const c = build([policy([rule(kinds("cert-manager.io/v1/Certificate"))])]);
    assert.deepEqual(flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules), [
      "cert-manager.io/v1/*@*:CREATE,UPDATE,DELETE,CONNECT",
    ]);
    assert.match(c.notes.join("\n"), /Certificate.*not a built-in kind/);
  });

  test("mutate rules go to the mutating webhook with CREATE and UPDATE; mutate-existing ones to the validating webhook", () => {
    const mutate = compile(
      clusterPolicy("m", [
        {
          name: "add",
          match: kinds("ConfigMap"),
          mutate: { patchStrategicMerge: { metadata: { labels: { a: "b" } } } },
        },
      ]),
    );
    const c = build([mutate]);
    assert.deepEqual(flat(only(c.mutating.webhooks, "mutate.bylaw.svc-fail").rules), [
      "/*/configmaps@Namespaced:CREATE,UPDATE",
    ]);
    assert.equal(only(c.mutating.webhooks, "mutate.bylaw.svc-fail").reinvocationPolicy, "IfNeeded");
    assert.deepEqual(c.validating.webhooks, []);
  });

  test("generate: match kinds with all four operations and the generated kind with CREATE, UPDATE, DELETE, on both webhooks", () => {
    const gen = compile(
      clusterPolicy("g", [
        {
          name: "gen",
          match: kinds("Namespace"),
          generate: {
            apiVersion: "v1",
            kind: "ConfigMap",
            name: "x",
            namespace: "{{request.object.metadata.name}}",
            data: { data: { a: "b" } },
          },
        },
      ]),
    );
    const c = build([gen]);
    const got = flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules);
    assert.deepEqual(got, [
      "/*/configmaps@Namespaced:CREATE,UPDATE,DELETE",
      "/*/namespaces@Cluster:CREATE,UPDATE,DELETE,CONNECT",
    ]);
    assert.deepEqual(flat(only(c.mutating.webhooks, "mutate.bylaw.svc-fail").rules), got);
  });

  test("a namespaced Policy's wildcard kinds are registered with scope Namespaced", () => {
    const doc = {
      ...clusterPolicy("t", [rule(kinds("*"))], { validationFailureAction: "Enforce", background: false }),
      kind: "Policy",
      metadata: { name: "t", namespace: "team" },
    };
    const c = build([compile(doc)]);
    assert.deepEqual(flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules), [
      "*/*/*@Namespaced:CREATE,UPDATE,DELETE,CONNECT",
    ]);
  });

  test("spec.admission: false keeps a policy out of the webhooks", () => {
    const c = build([policy([rule(kinds("Pod"))], { admission: false, background: true })]);
    assert.deepEqual(c.validating.webhooks, []);
  });
});

describe("registration: webhooks per failurePolicy and timeout group", () => {
  test("Fail and Ignore policies get their own webhooks, each with only its policies' kinds", () => {
    const c = build([
      policy([rule(kinds("Pod"))], {}, "f"),
      policy([rule(kinds("ConfigMap"))], { failurePolicy: "Ignore" }, "i"),
    ]);
    assert.deepEqual(
      c.validating.webhooks.map((w) => [w.name, w.failurePolicy, w.clientConfig.service?.path]),
      [
        ["validate.bylaw.svc-fail", "Fail", "/validate/fail"],
        ["validate.bylaw.svc-ignore", "Ignore", "/validate/ignore"],
      ],
    );
    assert.ok(
      !flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules).some((r) => r.includes("configmaps")),
    );
    assert.deepEqual(flat(only(c.validating.webhooks, "validate.bylaw.svc-ignore").rules), [
      "/*/configmaps@Namespaced:CREATE,UPDATE,DELETE,CONNECT",
    ]);
  });

  test("a policy with a registered extra timeout gets the timeout group's webhook, path and timeoutSeconds", () => {
    const c = build([policy([rule(kinds("Pod"))], { webhookTimeoutSeconds: 20 })], service, {
      defaultSeconds: 10,
      extra: [20],
    });
    const w = only(c.validating.webhooks, "validate.bylaw.svc-fail-timeout-20s");
    assert.equal(w.timeoutSeconds, 20);
    assert.equal(w.clientConfig.service?.path, "/validate/fail/timeout-20s");
    assert.equal(c.validating.webhooks.length, 1);
  });

  test("with --register every timeout is served: a 30 s policy gets its group's webhook, and no empty group is written", () => {
    const groups = withEveryTimeout({ defaultSeconds: 10, extra: [], fineGrained: true });
    const p = policy([rule(kinds("Pod"))], { webhookTimeoutSeconds: 30 });
    assert.deepEqual(timeoutProblems(p, groups), [], "no --timeout-group needed");
    const c = build([p, policy([rule(kinds("Pod"))], {}, "plain")], service, groups);
    assert.deepEqual(c.validating.webhooks.map((w) => [w.name, w.timeoutSeconds]).sort(), [
      ["validate.bylaw.svc-fail", 10],
      ["validate.bylaw.svc-fail-timeout-30s", 30],
    ]);
    assert.equal(
      only(c.validating.webhooks, "validate.bylaw.svc-fail-timeout-30s").clientConfig.service?.path,
      "/validate/fail/timeout-30s",
    );
  });

  test("no policies: the resource configurations hold no webhooks; the policy webhook stays", () => {
    const c = build([]);
    assert.deepEqual(c.validating.webhooks, []);
    assert.deepEqual(c.mutating.webhooks, []);
    assert.equal(c.policyValidating.webhooks.length, 1);
  });
});

describe("registration: selectors, conditions, client config", () => {
  test("Bylaw's own namespace and the system namespaces are excluded; deploy/base's matchConditions are kept", () => {
    const w = only(
      build([policy([rule(kinds("Pod"))])], { ...service, ownNamespace: "policy-engine" }).validating.webhooks,
      "validate.bylaw.svc-fail",
    );
    assert.deepEqual(w.namespaceSelector, {
      matchExpressions: [
        {
          key: "kubernetes.io/metadata.name",
          operator: "NotIn",
          values: ["kube-system", "kube-public", "kube-node-lease", "policy-engine"],
        },
      ],
    });
    assert.deepEqual(w.matchConditions, [...MATCH_CONDITIONS, OWN_OBJECTS_CONDITION]);
  });

  test("in-cluster: the Service with the group's path; caBundle is the base64 of the serving CA", () => {
    const w = only(build([policy([rule(kinds("Pod"))])]).validating.webhooks, "validate.bylaw.svc-fail");
    assert.deepEqual(w.clientConfig.service, { name: "bylaw", namespace: "bylaw", path: "/validate/fail", port: 443 });
    assert.equal(Buffer.from(w.clientConfig.caBundle, "base64").toString("utf8"), service.caPem);
    assert.equal(w.clientConfig.url, undefined);
  });

  test("outside the cluster (--server-url): a URL per path, as Kyverno's --serverIP", () => {
    const c = build([policy([rule(kinds("Pod"))])], {
      ...service,
      endpoint: { kind: "url", base: "https://127.0.0.1:9443/" },
    });
    assert.equal(
      only(c.validating.webhooks, "validate.bylaw.svc-fail").clientConfig.url,
      "https://127.0.0.1:9443/validate/fail",
    );
    assert.equal(c.policyValidating.webhooks[0]?.clientConfig.url, "https://127.0.0.1:9443/policyvalidate");
    assert.equal(only(c.validating.webhooks, "validate.bylaw.svc-fail").clientConfig.service, undefined);
  });

  test("the policy webhook: kyverno.io policies, exceptions and cleanup policies and the policies.kyverno.io policy kinds and PolicyException, CREATE and UPDATE, to /policyvalidate, Fail", () => {
    const w = build([]).policyValidating.webhooks[0];
    assert.ok(w);
    assert.equal(w.failurePolicy, "Fail");
    assert.equal(w.clientConfig.service?.path, "/policyvalidate");
    const rules = flat(w.rules);
    assert.deepEqual(rules.slice(0, 5), [
      "kyverno.io/*/cleanuppolicies@*:CREATE,UPDATE",
      "kyverno.io/*/clustercleanuppolicies@*:CREATE,UPDATE",
      "kyverno.io/*/clusterpolicies@*:CREATE,UPDATE",
      "kyverno.io/*/policies@*:CREATE,UPDATE",
      "kyverno.io/*/policyexceptions@*:CREATE,UPDATE",
    ]);
    for (const r of [
      "validatingpolicies",
      "namespacedvalidatingpolicies",
      "mutatingpolicies",
      "namespacedimagevalidatingpolicies",
      "generatingpolicies",
      "deletingpolicies",
      "policyexceptions",
    ])
      assert.ok(rules.includes(`policies.kyverno.io/*/${r}@*:CREATE,UPDATE`), rules.join("\n"));
  });

  test("the same set builds the same objects (no churn on re-apply)", () => {
    const a = build([policy([rule(kinds("Pod", "ConfigMap", "Secret"))])]);
    const b = build([policy([rule(kinds("Secret", "ConfigMap", "Pod"))])]);
    assert.deepEqual(a, b);
  });

  test("a policy with webhookConfiguration.matchConditions gets its own webhook (Kyverno's fine-grained name and path) with its conditions and timeout, and leaves the shared one", () => {
    const conditions = [{ name: "not-system", expression: "object.metadata.namespace != 'kube-system'" }];
    const scoped = compile({
      ...clusterPolicy("scoped", [rule(kinds("ConfigMap"))], {
        validationFailureAction: "Enforce",
        webhookConfiguration: { failurePolicy: "Ignore", timeoutSeconds: 15, matchConditions: conditions },
      }),
    });
    const c = build([policy([rule(kinds("Secret"))]), scoped]);
    const shared = only(c.validating.webhooks, "validate.bylaw.svc-fail");
    assert.deepEqual(flat(shared.rules), ["/*/secrets@Namespaced:CREATE,UPDATE,DELETE,CONNECT"]);
    assert.deepEqual(shared.matchConditions, [...MATCH_CONDITIONS, OWN_OBJECTS_CONDITION]);
    const own = only(c.validating.webhooks, "validate.bylaw.svc-ignore-finegrained-scoped");
    assert.deepEqual(flat(own.rules), ["/*/configmaps@Namespaced:CREATE,UPDATE,DELETE,CONNECT"]);
    assert.deepEqual(
      [own.failurePolicy, own.timeoutSeconds, own.clientConfig.service?.path],
      ["Ignore", 15, "/validate/ignore/finegrained/scoped"],
    );
    assert.deepEqual(own.matchConditions, [...conditions, OWN_OBJECTS_CONDITION]);
    assert.ok(
      own.namespaceSelector?.matchExpressions?.[0]?.values?.includes("bylaw"),
      "Bylaw's own namespace stays excluded",
    );
    assert.equal(c.validating.webhooks.filter((w) => w.name.includes("finegrained")).length, 1);
  });

  test("a namespaced Policy's fine-grained webhook is named <ns>-<name> and served at <ns>/<name>", () => {
    const doc = {
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      metadata: { name: "scoped", namespace: "team-a" },
      spec: {
        validationFailureAction: "Enforce",
        webhookConfiguration: { matchConditions: [{ name: "c", expression: "true" }] },
        rules: [rule(kinds("ConfigMap"))],
      },
    };
    const w = only(build([compile(doc)]).validating.webhooks, "validate.bylaw.svc-fail-finegrained-team-a-scoped");
    assert.equal(w.clientConfig.service?.path, "/validate/fail/finegrained/team-a/scoped");
    assert.deepEqual(flat(w.rules), ["/*/configmaps@Namespaced:CREATE,UPDATE,DELETE,CONNECT"]);
  });

  test("a kind the built-in table does not know is registered as discovery serves it: exact group, plural, scope", () => {
    const resolve = (s: { kind: string; group: string; subresource: string }) =>
      s.kind === "Widget"
        ? [
            {
              group: "example.com",
              resource: s.subresource === "status" ? "widgets/status" : "widgets",
              namespaced: true,
            },
          ]
        : [];
    const c = buildConfigurations(
      [policy([rule(kinds("Widget", "example.com/v1/Widget/status", "Sprocket"))])],
      defaults,
      service,
      resolve,
    );
    const got = flat(only(c.validating.webhooks, "validate.bylaw.svc-fail").rules);
    assert.ok(got.includes("example.com/*/widgets@Namespaced:CREATE,UPDATE,DELETE,CONNECT"), got.join("\n"));
    assert.ok(got.includes("example.com/v1/widgets/status@Namespaced:CREATE,UPDATE,DELETE,CONNECT"), got.join("\n"));
    assert.ok(
      got.includes("*/*/*@*:CREATE,UPDATE,DELETE,CONNECT"),
      `a kind discovery does not serve stays registered wide: ${got.join("\n")}`,
    );
    assert.deepEqual(c.notes, [
      'ClusterPolicy p: kind "Sprocket" is served by no resource the API server\'s discovery lists (yet); every resource of every group is registered for it',
    ]);
    const unread = build([policy([rule(kinds("Widget"))])]);
    assert.match(
      unread.notes.join(),
      /"Widget" is not a built-in kind Bylaw knows and discovery was not read; every resource of every group/,
    );
  });

  test("a built-in kind named without its group also registers a custom resource of that kind in another group", () => {
    const resolve = (s: { kind: string }) =>
      s.kind === "Service"
        ? [
            { group: "", resource: "services", namespaced: true },
            { group: "serving.knative.dev", resource: "services", namespaced: true },
          ]
        : [];
    const got = flat(
      only(
        buildConfigurations([policy([rule(kinds("Service"))])], defaults, service, resolve).validating.webhooks,
        "validate.bylaw.svc-fail",
      ).rules,
    );
    assert.deepEqual(got, [
      "/*/services@Namespaced:CREATE,UPDATE,DELETE,CONNECT",
      "serving.knative.dev/*/services@Namespaced:CREATE,UPDATE,DELETE,CONNECT",
    ]);
  });
});
