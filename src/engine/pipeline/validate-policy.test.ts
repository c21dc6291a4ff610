/** The validate pipeline end to end, through the real modules, with fake ports. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineRequest } from "./types.js";
import { compileException, type CompiledException } from "../exceptions/index.js";
import { fakePorts, type FakeContext } from "../../../test/support/fake-ports.js";
import { clusterPolicy, deployment, pod, podRule } from "../../../test/support/builders.js";

function compile(
  doc: JsonObject,
  ctx?: FakeContext,
): { engine: ReturnType<typeof createEngine>; policy: CompiledPolicy } {
  const engine = createEngine(fakePorts(ctx));
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(r.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
  return { engine, policy: r.policy };
}

function run(doc: JsonObject, resource: JsonObject, extra: Partial<EngineRequest> = {}, ctx?: FakeContext) {
  const { engine, policy } = compile(doc, ctx);
  return engine.validate(policy, { resource, operation: "CREATE", namespaceLabels: {}, ...extra }).rules;
}

const requireTeam = clusterPolicy("require-team", [
  podRule("check-team", { message: "team label required", pattern: { metadata: { labels: { team: "?*" } } } }),
]);

describe("validate pattern", () => {
  test("passes with Kyverno's pass message", () => {
    const [r] = run(requireTeam, pod({ name: "a", labels: { team: "x" } }));
    assert.deepEqual(r, {
      rule: "check-team",
      type: "Validation",
      status: "pass",
      message: "validation rule 'check-team' passed.",
    });
  });
  test("fails with the message, a dot and the path", () => {
    const [r] = run(requireTeam, pod({ name: "a" }));
    assert.equal(r?.status, "fail");
    assert.equal(r?.message, "validation error: team label required. rule check-team failed at path /metadata/labels/");
  });
  test("an unmatched kind leaves no rule result", () => {
    const svc = { apiVersion: "v1", kind: "Service", metadata: { name: "s" } };
    assert.deepEqual(run(requireTeam, svc), []);
  });
  test("autogen rules check Pod templates of controllers", () => {
    const rules = run(requireTeam, deployment("d", {}));
    assert.deepEqual(
      rules.map((r) => [r.rule, r.status]),
      [["autogen-check-team", "fail"]],
    );
    assert.match(rules[0]?.message ?? "", /failed at path \/spec\/template\/metadata\/labels\//);
  });
  test("variables in messages are substituted", () => {
    const doc = clusterPolicy("p", [
      podRule("r", {
        message: "pod {{ request.object.metadata.name }} needs a team",
        pattern: { metadata: { labels: { team: "?*" } } },
      }),
    ]);
    assert.equal(
      run(doc, pod({ name: "web" }))[0]?.message,
      "validation error: pod web needs a team. rule r failed at path /metadata/labels/",
    );
  });
});

describe("anyPattern", () => {
  const doc = clusterPolicy("p", [
    podRule("r", {
      message: "need a or b",
      anyPattern: [{ metadata: { labels: { a: "?*" } } }, { metadata: { labels: { b: "?*" } } }],
    }),
  ]);
  test("passes when one pattern passes", () => {
    assert.equal(
      run(doc, pod({ name: "x", labels: { b: "1" } }))[0]?.message,
      "validation rule 'r' anyPattern[1] passed.",
    );
  });
  test("fails listing every pattern's path", () => {
    assert.equal(
      run(doc, pod({ name: "x" }))[0]?.message,
      "validation error: need a or b. rule r[0] failed at path /metadata/labels/ rule r[1] failed at path /metadata/labels/",
    );
  });
});

describe("deny, preconditions and context", () => {
  const deny = clusterPolicy("p", [
    podRule("no-default", {
      message: "namespace {{ request.object.metadata.namespace }} is not allowed",
      deny: {
        conditions: { any: [{ key: "{{ request.object.metadata.namespace }}", operator: "Equals", value: "default" }] },
      },
    }),
  ]);
  test("deny conditions that hold fail with the substituted message (no prefix)", () => {
    const [r] = run(deny, pod({ name: "a", namespace: "default" }));
    assert.deepEqual([r?.status, r?.message], ["fail", "namespace default is not allowed"]);
  });
  test("deny conditions that do not hold pass", () => {
    assert.equal(run(deny, pod({ name: "a", namespace: "shop" }))[0]?.status, "pass");
  });
  test("preconditions not met give skip", () => {
    const doc = clusterPolicy("p", [
      podRule(
        "r",
        { pattern: { metadata: { labels: { team: "?*" } } } },
        {
          preconditions: {
            all: [{ key: "{{ request.operation }}", operator: "Equals", value: "UPDATE", message: "only updates" }],
          },
        },
      ),
    ]);
    assert.deepEqual(
      run(doc, pod({ name: "a" })).map((r) => [r.status, r.message]),
      [["skip", "preconditions not met; only updates"]],
    );
  });
  test("a precondition reading a missing key is an error, not a skip", () => {
    const doc = clusterPolicy("p", [
      podRule(
        "r",
        { pattern: { metadata: {} } },
        {
          preconditions: { all: [{ key: "{{ request.object.spec.nothing }}", operator: "Equals", value: "x" }] },
        },
      ),
    ]);
    const [r] = run(doc, pod({ name: "a" }));
    assert.equal(r?.status, "error");
    assert.match(r?.message ?? "", /^failed to evaluate preconditions: .*Unknown key "nothing" in path/);
  });
  test("variable context entries feed later expressions", () => {
    const doc = clusterPolicy("p", [
      podRule(
        "r",
        {
          deny: {
            conditions: {
              any: [
                { key: "{{ limit }}", operator: "LessThan", value: "{{ request.object.spec.containers | length(@) }}" },
              ],
            },
          },
        },
        { context: [{ name: "limit", variable: { value: 1 } }] },
      ),
    ]);
    const two = pod({
      name: "a",
      containers: [
        { name: "a", image: "a:1" },
        { name: "b", image: "b:1" },
      ],
    });
    assert.equal(run(doc, two)[0]?.status, "fail");
    assert.equal(run(doc, pod({ name: "b" }))[0]?.status, "pass");
  });
  test("configMap entries load through the context port", () => {
    const doc = clusterPolicy("p", [
      podRule(
        "r",
        {
          deny: {
            conditions: {
              any: [{ key: "{{ request.object.metadata.name }}", operator: "AnyIn", value: "{{ cm.data.blocked }}" }],
            },
          },
        },
        { context: [{ name: "cm", configMap: { name: "settings", namespace: "kyverno" } }] },
      ),
    ]);
    const ctx = { configMaps: { "kyverno/settings": { data: { blocked: '["bad"]' } } } };
    assert.equal(run(doc, pod({ name: "bad" }), {}, ctx)[0]?.status, "fail");
    assert.equal(run(doc, pod({ name: "good" }), {}, ctx)[0]?.status, "pass");
  });
});

describe("foreach", () => {
  const doc = clusterPolicy("p", [
    podRule("tags", {
      message: "images need a tag",
      foreach: [{ list: "request.object.spec.containers", pattern: { image: "*:*" } }],
    }),
  ]);
  test("fails on the first element that does not pass", () => {
    const [r] = run(
      doc,
      pod({
        name: "a",
        containers: [
          { name: "a", image: "a:1" },
          { name: "b", image: "b" },
        ],
      }),
    );
    assert.equal(r?.status, "fail");
    assert.match(
      r?.message ?? "",
      /^validation failure: validation error: images need a tag\. rule tags failed at path \/image\//,
    );
  });
  test("passes when every element passes", () => {
    assert.equal(run(doc, pod({ name: "a" }))[0]?.status, "pass");
  });
  test("a list with no applicable elements gives no result", () => {
    const none = clusterPolicy("p", [
      podRule("r", { foreach: [{ list: "request.object.spec.initContainers", pattern: { image: "*:*" } }] }),
    ]);
    assert.deepEqual(run(none, pod({ name: "a" })), []);
  });
});

describe("policy-level behaviour", () => {
  test("applyRules One stops after the first pass or fail", () => {
    const doc = clusterPolicy(
      "p",
      [
        podRule("first", { pattern: { metadata: { name: "?*" } } }),
        podRule("second", { pattern: { metadata: { name: "?*" } } }),
      ],
      { applyRules: "One" },
    );
    assert.deepEqual(
      run(doc, pod({ name: "a" })).map((r) => r.rule),
      ["first"],
    );
  });
  test("a namespaced Policy applies only in its own namespace", () => {
    const doc = {
      ...clusterPolicy("p", [podRule("r", { pattern: { metadata: { name: "?*" } } })]),
      kind: "Policy",
      metadata: { name: "p", namespace: "team-a" },
    };
    assert.equal(run(doc, pod({ name: "x", namespace: "team-a" })).length, 1);
    assert.equal(run(doc, pod({ name: "x", namespace: "team-b" })).length, 0);
  });
});

describe("DELETE, as Kyverno's validate handlers treat it", () => {
  const deleting = (old: JsonObject): Partial<EngineRequest> => ({ operation: "DELETE", oldResource: old });
  test("a pattern or anyPattern rule gives no result, whether or not the object being removed complies", () => {
    const anyPattern = clusterPolicy("p", [
      podRule("r", { anyPattern: [{ metadata: { labels: { team: "?*" } } }, { metadata: { labels: { app: "?*" } } }] }),
    ]);
    for (const doc of [requireTeam, anyPattern]) {
      assert.deepEqual(run(doc, {}, deleting(pod({ name: "bad" }))), [], "non-compliant: deletion not failed");
      assert.deepEqual(run(doc, {}, deleting(pod({ name: "ok", labels: { team: "t" } }))), []);
    }
  });
  test("a pattern whose variables fail to substitute is still an error on DELETE", () => {
    const doc = clusterPolicy("p", [
      podRule("r", { pattern: { metadata: { name: "{{ request.object.nope.deeper }}" } } }),
    ]);
    const [r] = run(doc, {}, deleting(pod({ name: "a" })));
    assert.equal(r?.status, "error", r?.message);
  });
  test("a deny rule is evaluated, request.object reading the old object", () => {
    const doc = clusterPolicy("p", [
      podRule("no-delete-protected", {
        message: "{{ request.object.metadata.name }} is protected",
        deny: {
          conditions: {
            any: [{ key: "{{ request.object.metadata.labels.protected || '' }}", operator: "Equals", value: "yes" }],
          },
        },
      }),
    ]);
    const [denied] = run(doc, {}, deleting(pod({ name: "keep", labels: { protected: "yes" } })));
    assert.deepEqual([denied?.status, denied?.message], ["fail", "keep is protected"]);
    const [allowed] = run(doc, {}, deleting(pod({ name: "go" })));
    assert.equal(allowed?.status, "pass");
  });
  test("a foreach pattern checks the elements its list reads: request.oldObject's; request.object is null (no rewrite in the list)", () => {
    const foreachOver = (list: string): JsonObject =>
      clusterPolicy("p", [podRule("images", { foreach: [{ list, pattern: { image: "!*:latest" } }] })]);
    const old = pod({ name: "a", image: "nginx:latest" });
    const [r] = run(foreachOver("request.oldObject.spec.containers"), {}, deleting(old));
    assert.equal(r?.status, "fail", r?.message);
    assert.deepEqual(run(foreachOver("request.object.spec.containers"), {}, deleting(old)), []);
  });
  test("a podSecurity rule gives no result", () => {
    const doc = clusterPolicy("p", [podRule("pss", { podSecurity: { level: "restricted", version: "latest" } })]);
    const bad = pod({ name: "bad" });
    assert.equal(run(doc, bad)[0]?.status, "fail", "the same pod fails at CREATE");
    assert.deepEqual(run(doc, {}, deleting(bad)), []);
  });
});

describe("failure actions and allowExistingViolations", () => {
  const enforced = (allow?: boolean) =>
    clusterPolicy("p", [
      podRule("r", {
        failureAction: "Enforce",
        ...(allow === undefined ? {} : { allowExistingViolations: allow }),
        pattern: { metadata: { labels: { team: "?*" } } },
      }),
    ]);
  const update = (oldLabels?: Record<string, string>) => ({
    operation: "UPDATE" as const,
    oldResource: pod({ name: "a", ...(oldLabels ? { labels: oldLabels } : {}) }),
  });
  test("an UPDATE that keeps an existing violation is skipped under Enforce", () => {
    const [r] = run(enforced(), pod({ name: "a" }), update());
    assert.deepEqual(
      [r?.status, r?.message],
      ["skip", "skipping the rule evaluation as pre-existing violations are allowed"],
    );
  });
  test("an UPDATE that introduces the violation still fails", () => {
    assert.equal(run(enforced(), pod({ name: "a" }), update({ team: "t" }))[0]?.status, "fail");
  });
  test("allowExistingViolations: false fails the UPDATE anyway", () => {
    assert.equal(run(enforced(false), pod({ name: "a" }), update())[0]?.status, "fail");
  });
  test("Audit rules are not affected", () => {
    const audit = clusterPolicy("p", [podRule("r", { pattern: { metadata: { labels: { team: "?*" } } } })]);
    assert.equal(run(audit, pod({ name: "a" }), update())[0]?.status, "fail");
  });
  test("an Audit policy that a namespace override enforces gets no allowance (Kyverno reads no overrides there)", () => {
    const doc = clusterPolicy("p", [podRule("r", { pattern: { metadata: { labels: { team: "?*" } } } })]);
    const spec = doc["spec"] as JsonObject;
    spec["validationFailureAction"] = "Audit";
    spec["validationFailureActionOverrides"] = [{ action: "Enforce", namespaces: ["default"] }];
    const [r] = run(doc, pod({ name: "a" }), update());
    assert.equal(r?.status, "fail", "the old violation is not excused; the override then enforces the failure");
  });
  test("the old object is evaluated as created: request.oldObject is null there", () => {
    // Denies adding keys: on the UPDATE the new object has a key the old one lacks. Evaluated as
    // created, the old object is compared with a null oldObject: no key of it is in null, so the old
    // object "fails" too and the violation counts as pre-existing only when oldObject is null there.
    const doc = clusterPolicy("p", [
      {
        name: "no-new-keys",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        validate: {
          failureAction: "Enforce",
          message: "keys may not be added",
          deny: {
            conditions: {
              any: [
                {
                  key: "{{ request.oldObject.data || `{}` | keys(@) | length(@) }}",
                  operator: "LessThan",
                  value: "{{ request.object.data | keys(@) | length(@) }}",
                },
              ],
            },
          },
        },
      },
    ]);
    const cm = (data: Record<string, string>): JsonObject => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "default" },
      data,
    });
    const [r] = run(doc, cm({ a: "1", b: "2" }), { operation: "UPDATE", oldResource: cm({ a: "1" }) });
    assert.deepEqual(
      [r?.status, r?.message],
      ["skip", "skipping the rule evaluation as pre-existing violations are allowed"],
      "as Kyverno: evaluated as created, the old object (1 key, oldObject null) fails the same deny",
    );
  });
});

describe("validate.podSecurity and PolicyExceptions in the rule loop", () => {
  const baseline = clusterPolicy("psa", [
    podRule("baseline", { podSecurity: { level: "baseline", version: "latest" } }),
  ]);
  const privileged = pod({
    name: "priv",
    containers: [{ name: "app", image: "nginx:1.27", securityContext: { privileged: true } }],
  });
  const exception = (podSecurity?: JsonObject[]): CompiledException => {
    const r = compileException({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "allow-priv", namespace: "ops" },
      spec: {
        exceptions: [{ policyName: "psa", ruleNames: ["baseline", "check-team"] }],
        match: { any: [{ resources: { kinds: ["Pod"], names: ["priv"] } }] },
        ...(podSecurity !== undefined ? { podSecurity } : {}),
      },
    });
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
    return r.exception;
  };

  test("a privileged container fails baseline with Kyverno's text and report properties", () => {
    const [r] = run(baseline, privileged);
    assert.equal(r?.status, "fail");
    assert.match(
      r?.message ?? "",
      /^Validation rule 'baseline' failed\. It violates PodSecurity "baseline:latest": \(Forbidden reason: privileged/,
    );
    assert.equal(r?.properties?.["standard"], "baseline");
    assert.equal(r?.properties?.["controls"], "privileged");
  });

  test("a compliant pod passes; autogen checks a Deployment's template", () => {
    assert.equal(run(baseline, pod({ name: "ok" }))[0]?.status, "pass");
    const rules = run(baseline, deployment("d"));
    assert.deepEqual(
      rules.map((r) => [r.rule, r.status]),
      [["autogen-baseline", "pass"]],
    );
  });

  test("an exception without podSecurity entries skips the rule, naming the exception", () => {
    const [r] = run(baseline, privileged, { exceptions: [exception()] });
    assert.equal(r?.status, "skip");
    assert.equal(r?.message, "rule is skipped due to policy exception ops/allow-priv");
    assert.deepEqual(r?.exceptions, ["ops/allow-priv"]);
  });

  test("podSecurity entries of an exception exclude the control; the rule then skips", () => {
    const [r] = run(baseline, privileged, {
      exceptions: [exception([{ controlName: "Privileged Containers", images: ["nginx*"] }])],
    });
    assert.equal(r?.status, "skip");
    assert.equal(r?.message, "rule is skipped due to policy exceptions ops/allow-priv");
  });

  test("an exclusion for another control leaves the failure", () => {
    const [r] = run(baseline, privileged, {
      exceptions: [exception([{ controlName: "Host Ports", images: ["nginx*"] }])],
    });
    assert.equal(r?.status, "fail");
  });

  test("an exception skips any other rule type too; a resource it does not match is evaluated", () => {
    const policy = clusterPolicy("psa", [
      podRule("check-team", { message: "team label required", pattern: { metadata: { labels: { team: "?*" } } } }),
    ]);
    assert.equal(
      run(policy, privileged, { exceptions: [exception()] })[0]?.message,
      "rule is skipped due to policy exceptionsops/allow-priv",
    );
    assert.equal(run(policy, pod({ name: "other" }), { exceptions: [exception()] })[0]?.status, "fail");
  });

  test("exceptions outside the allowed namespaces are ignored", () => {
    assert.equal(
      run(baseline, privileged, { exceptions: [exception()], exceptionNamespaces: ["bylaw"] })[0]?.status,
      "fail",
    );
  });
});

describe("image data is built only for policies that mention images", () => {
  test("a policy reading images sees them after one that does not ran on the same request", () => {
    const engine = createEngine(fakePorts());
    const compile = (doc: JsonObject) => {
      const r = engine.compile(doc);
      if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
      return r.policy;
    };
    const plain = compile(requireTeam);
    const registry = compile(
      clusterPolicy("registry", [
        podRule("check-registry", {
          message: "wrong registry",
          deny: {
            conditions: {
              any: [
                { key: "{{ images.containers.*.registry }}", operator: "AnyNotIn", value: ["registry.example.com"] },
              ],
            },
          },
        }),
      ]),
    );
    assert.equal(plain.language === "kyverno" && plain.usesImages, false);
    assert.equal(registry.language === "kyverno" && registry.usesImages, true);
    const request: EngineRequest = {
      resource: pod({ name: "a", labels: { team: "x" }, containers: [{ name: "c", image: "docker.io/nginx:1" }] }),
      operation: "CREATE",
      namespaceLabels: {},
    };
    assert.equal(engine.validate(plain, request).rules[0]?.status, "pass");
    assert.equal(engine.validate(registry, request).rules[0]?.status, "fail");
    const good: EngineRequest = {
      ...request,
      resource: pod({ name: "b", containers: [{ name: "c", image: "registry.example.com/nginx:1" }] }),
    };
    assert.equal(engine.validate(plain, good).rules[0]?.status, "fail");
    assert.equal(engine.validate(registry, good).rules[0]?.status, "pass");
  });
});
