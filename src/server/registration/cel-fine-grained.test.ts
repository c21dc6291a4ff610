/** A policies.kyverno.io policy's own ("fine-grained") webhook, as Kyverno registers it (pkg/controllers/webhook `buildWebhookRules`). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import { buildConfigurations, OWN_OBJECTS_CONDITION } from "./build-configurations.js";
import type { RegistrationTarget, Webhook } from "../../controllers/registration/types.js";
import { parseFineGrainedPath, timeoutProblems, type TimeoutGroups } from "../admission/webhook-groups.js";
import { qualifiedName } from "../../engine/index.js";

const engine = createEngine(fakePorts());
const service: RegistrationTarget = {
  endpoint: { kind: "service", name: "bylaw", namespace: "bylaw", port: 443 },
  caPem: "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n",
  ownNamespace: "bylaw",
};
const groups: TimeoutGroups = { defaultSeconds: 10, extra: [], fineGrained: true };
const configMaps = {
  resourceRules: [
    { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] },
  ],
};
const pods = { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] };
const blue = [{ name: "blue", expression: "object.metadata.labels['color'] == 'blue'" }];

function cel(kind: string, name: string, spec: JsonObject, namespace?: string): CompiledPolicy {
  const validations =
    kind.includes("ValidatingPolicy") && !kind.includes("Image") ? { validations: [{ expression: "true" }] } : {};
  const doc = {
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
    spec: { ...validations, ...spec },
  };
  const c = compileCelPolicy(doc, engine);
  assert.ok(c.policy !== undefined, JSON.stringify(c.problems));
  return c.policy;
}
const hooks = (policies: CompiledPolicy[]): readonly Webhook[] =>
  buildConfigurations(policies, groups, service).validating.webhooks;
const only = (list: readonly Webhook[], name: string): Webhook => {
  const w = list.find((h) => h.name === name);
  assert.ok(w, `no webhook ${name} in ${list.map((h) => h.name).join(", ")}`);
  return w;
};

describe("registration: a CEL policy's own webhook", () => {
  test("a ValidatingPolicy with matchConditions leaves the shared webhook and gets vpol.validate.bylaw.svc-fail-finegrained-<name>, carrying them", () => {
    const list = hooks([
      cel("ValidatingPolicy", "shared", { matchConstraints: configMaps }),
      cel("ValidatingPolicy", "blue-only", { matchConstraints: configMaps, matchConditions: blue }),
    ]);
    const own = only(list, "vpol.validate.bylaw.svc-fail-finegrained-blue-only");
    assert.equal(own.clientConfig.service?.path, "/vpol/fail/finegrained/blue-only");
    assert.deepEqual(
      own.matchConditions,
      [...blue, OWN_OBJECTS_CONDITION],
      "its own conditions and Bylaw's, in place of the shared ones",
    );
    assert.deepEqual([own.failurePolicy, own.matchPolicy, own.timeoutSeconds], ["Fail", "Equivalent", 10]);
    assert.deepEqual(own.rules, [
      { apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"], operations: ["CREATE", "UPDATE"], scope: "*" },
    ]);
    assert.equal(
      list.filter((w) => w.name.includes("finegrained")).length,
      1,
      "the policy without a reason stays on the shared webhook",
    );
    assert.ok(only(list, "validate.bylaw.svc-fail").rules.length > 0);
  });

  test("a policy that is the only one with a reason leaves the shared webhooks empty: none is registered", () => {
    const list = hooks([cel("ValidatingPolicy", "alone", { matchConstraints: configMaps, matchConditions: blue })]);
    assert.deepEqual(
      list.map((w) => w.name),
      ["vpol.validate.bylaw.svc-fail-finegrained-alone"],
    );
  });

  test("webhookConfiguration.timeoutSeconds gives it its own webhook with that timeout (no --timeout-group needed)", () => {
    const timed = cel("ValidatingPolicy", "slow", {
      matchConstraints: configMaps,
      failurePolicy: "Ignore",
      webhookConfiguration: { timeoutSeconds: 25 },
    });
    const own = only(hooks([timed]), "vpol.validate.bylaw.svc-ignore-finegrained-slow");
    assert.deepEqual(
      [own.failurePolicy, own.timeoutSeconds, own.clientConfig.service?.path],
      ["Ignore", 25, "/vpol/ignore/finegrained/slow"],
    );
    assert.deepEqual(timeoutProblems(timed, groups), []);
    assert.equal(
      timeoutProblems(timed, { defaultSeconds: 10, extra: [] }).length,
      1,
      "without --register its timeout still needs a registered group",
    );
  });

  test("matchPolicy Exact gives it its own webhook with matchPolicy Exact; its selectors are merged with Bylaw's", () => {
    const exact = cel("ValidatingPolicy", "exact", {
      matchConstraints: {
        ...configMaps,
        matchPolicy: "Exact",
        namespaceSelector: { matchLabels: { team: "a" } },
        objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
      },
    });
    const own = only(hooks([exact]), "vpol.validate.bylaw.svc-fail-finegrained-exact");
    assert.equal(own.matchPolicy, "Exact");
    assert.deepEqual(own.namespaceSelector?.matchLabels, { team: "a" });
    assert.ok(
      own.namespaceSelector?.matchExpressions?.some((e) => e.operator === "NotIn" && e.values?.includes("bylaw")),
      "Bylaw's own namespace stays excluded",
    );
    assert.deepEqual(own.objectSelector, { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] });
    assert.deepEqual(own.matchConditions, [OWN_OBJECTS_CONDITION]);
  });

  test("a NamespacedValidatingPolicy's webhook names its namespace and selects only it", () => {
    const own = only(
      hooks([
        cel("NamespacedValidatingPolicy", "blue", { matchConstraints: configMaps, matchConditions: blue }, "team-a"),
      ]),
      "nvpol.validate.bylaw.svc-fail-finegrained-team-a-blue",
    );
    assert.equal(own.clientConfig.service?.path, "/nvpol/fail/finegrained/team-a/blue");
    assert.ok(
      own.namespaceSelector?.matchExpressions?.some((e) => e.operator === "In" && e.values?.join() === "team-a"),
    );
    assert.equal(own.rules[0]?.scope, "Namespaced");
  });

  test("a Pod policy that autogens: each condition is guarded to the kinds it was written for, the controllers' copies rewritten", () => {
    const own = only(
      hooks([
        cel("ValidatingPolicy", "pods", {
          matchConstraints: pods,
          matchConditions: [{ name: "web", expression: "object.spec.containers.size() > 0" }],
        }),
      ]),
      "vpol.validate.bylaw.svc-fail-finegrained-pods",
    );
    const byName = new Map(own.matchConditions?.map((c) => [c.name, c.expression]));
    assert.deepEqual(
      [...byName.keys()],
      ["autogen-web", "autogen-cronjobs-web", "autogen-defaults-web", OWN_OBJECTS_CONDITION.name],
    );
    assert.equal(
      byName.get("autogen-web"),
      "!((request.kind.group == '' && request.kind.version == 'v1' && request.kind.kind == 'Pod')) || (object.spec.containers.size() > 0)",
    );
    assert.match(
      byName.get("autogen-defaults-web") ?? "",
      /request\.kind\.kind == 'Deployment'.*\|\| \(object\.spec\.template\.spec\.containers\.size\(\) > 0\)$/,
    );
    assert.match(
      byName.get("autogen-cronjobs-web") ?? "",
      /request\.kind\.kind == 'CronJob'\)\) \|\| \(object\.spec\.jobTemplate\.spec\.template\.spec\.containers/,
    );
    assert.ok(
      own.rules.some((r) => r.resources.includes("deployments")),
      "the controllers are registered on the same webhook",
    );
  });

  test("an ImageValidatingPolicy (answered as an error) with matchConditions gets ivpol's own webhook, so the API server applies them", () => {
    const m = cel("ImageValidatingPolicy", "m", {
      matchConstraints: configMaps,
      matchConditions: blue,
      validationActions: ["Deny"],
      attestors: [],
      validations: [],
    });
    const own = only(hooks([m]), "ivpol.validate.bylaw.svc-fail-finegrained-m");
    assert.equal(own.clientConfig.service?.path, "/ivpol/fail/finegrained/m");
    assert.deepEqual(own.matchConditions, [...blue, OWN_OBJECTS_CONDITION]);
  });

  test("a MutatingPolicy with matchConditions gets mpol's own webhook on the mutating configuration (Kyverno's name), whose path is a mutate path", () => {
    const m = cel("MutatingPolicy", "m", { matchConstraints: configMaps, matchConditions: blue, mutations: [] });
    assert.equal(
      hooks([m]).find((h) => h.name.startsWith("mpol.")),
      undefined,
    );
    const own = only(
      buildConfigurations([m], groups, service).mutating.webhooks,
      "mpol.validate.bylaw.svc-fail-finegrained-m",
    );
    assert.equal(own.clientConfig.service?.path, "/mpol/fail/finegrained/m");
    assert.deepEqual(own.matchConditions, [...blue, OWN_OBJECTS_CONDITION]);
    assert.equal(parseFineGrainedPath("/mpol/fail/finegrained/m")?.kind, "mutate");
  });

  test("a MutatingPolicy whose matchConditions do not compile is invalid, naming the field (the API server would refuse the webhook)", () => {
    const c = compileCelPolicy(
      {
        apiVersion: "policies.kyverno.io/v1",
        kind: "MutatingPolicy",
        metadata: { name: "bad" },
        spec: { matchConstraints: configMaps, matchConditions: [{ name: "x", expression: "object.(" }], mutations: [] },
      },
      engine,
    );
    assert.equal(c.policy, undefined);
    assert.match(c.problems[0]?.message ?? "", /MutatingPolicy bad/);
  });
});

describe("registration: names the API server accepts, whatever the policies' names (kube-names.ts)", () => {
  const long62 = `check-${"x".repeat(52)}-end`;
  const names = (w: Webhook): string[] => (w.matchConditions ?? []).map((c) => c.name);

  test("a 62-character condition of a Pod policy that autogens: every prefixed name is a valid qualified name, unique, and stable", () => {
    assert.equal(long62.length, 62);
    const conditions = [
      { name: long62, expression: "object.spec.containers.size() > 0" },
      { name: "web", expression: "true" },
    ];
    const build = () =>
      only(
        hooks([cel("ValidatingPolicy", "pods", { matchConstraints: pods, matchConditions: conditions })]),
        "vpol.validate.bylaw.svc-fail-finegrained-pods",
      );
    const got = names(build()).filter((n) => n !== OWN_OBJECTS_CONDITION.name);
    assert.equal(got.length, 6);
    for (const n of got) assert.deepEqual(qualifiedName(n), [], n);
    assert.equal(new Set(got).size, 6, got.join(", "));
    assert.ok(got.includes("autogen-web") && got.includes("autogen-cronjobs-web"), "names that fit stay Kyverno's");
    assert.ok(
      got.some((n) => /^autogen-check-x+-[0-9a-f]{12}$/.test(n)),
      got.join(", "),
    );
    assert.deepEqual(names(build()), [...got, OWN_OBJECTS_CONDITION.name], "the same on every build");
  });

  test("prefixed names that read alike (`cronjobs-x` of the Pod, `x` of the cronjobs copy) are both hashed, so they stay unique", () => {
    const conditions = [
      { name: "cronjobs-x", expression: "true" },
      { name: "x", expression: "true" },
    ];
    const got = names(
      only(
        hooks([cel("ValidatingPolicy", "pods", { matchConstraints: pods, matchConditions: conditions })]),
        "vpol.validate.bylaw.svc-fail-finegrained-pods",
      ),
    );
    assert.equal(new Set(got).size, got.length, got.join(", "));
    assert.ok(!got.includes("autogen-cronjobs-x"), got.join(", "));
    assert.ok(got.includes("autogen-x") && got.includes("autogen-cronjobs-cronjobs-x"));
  });

  test("two namespaced policies whose `<ns>-<name>` read alike get distinct webhook names; a long name stays a valid DNS subdomain", () => {
    const list = hooks([
      cel("NamespacedValidatingPolicy", "c", { matchConstraints: configMaps, matchConditions: blue }, "a-b"),
      cel("NamespacedValidatingPolicy", "b-c", { matchConstraints: configMaps, matchConditions: blue }, "a"),
    ]);
    const own = list.filter((w) => w.name.includes("finegrained"));
    assert.equal(own.length, 2);
    assert.notEqual(own[0]?.name, own[1]?.name);
    for (const w of own) assert.match(w.name, /^nvpol\.validate\.bylaw\.svc-fail-finegrained-a-b-c-[0-9a-f]{12}$/);
    assert.deepEqual(
      own.map((w) => w.clientConfig.service?.path).sort(),
      ["/nvpol/fail/finegrained/a-b/c", "/nvpol/fail/finegrained/a/b-c"],
      "the paths were distinct already",
    );
    const lone = only(
      hooks([cel("ValidatingPolicy", long62, { matchConstraints: configMaps, matchConditions: blue })]),
      `vpol.validate.bylaw.svc-fail-finegrained-${long62}`,
    );
    assert.ok(lone.name.length <= 253, "a 62-character policy name keeps Kyverno's webhook name");
  });
});

describe("loading a CEL policy that sets a webhook timeout", () => {
  test("with --register it needs no timeout group: the server's check sees it has a webhook of its own", () => {
    const doc = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "slow" },
      spec: {
        matchConstraints: configMaps,
        validations: [{ expression: "true" }],
        webhookConfiguration: { timeoutSeconds: 25 },
      },
    };
    assert.deepEqual(compileCelPolicy(doc, engine, (p) => timeoutProblems(p, groups)).problems, []);
    assert.match(
      compileCelPolicy(doc, engine, (p) => timeoutProblems(p, { defaultSeconds: 10, extra: [] })).problems[0]
        ?.message ?? "",
      /no webhook is registered for the 25s timeout/,
    );
  });
});
