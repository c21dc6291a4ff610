/**
 * Context sources learn whose policy asks (ContextCaller.policyNamespace), so a live source can
 * confine a namespaced Policy; and a refusal, an unready cache or an unsupported call is a rule
 * error even when the apiCall has a `default` (never a value standing in for data nobody read).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { err, ok } from "../api/result.js";
import { createEngine } from "../engine.js";
import type { ContextCaller, ContextSources } from "../ports.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { pod } from "../../../test/support/builders.js";

function policy(kind: "Policy" | "ClusterPolicy", context: JsonObject[], read = "v"): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind,
    metadata: kind === "Policy" ? { name: "p", namespace: "tenant-a" } : { name: "p" },
    spec: {
      validationFailureAction: "Enforce",
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          context,
          validate: {
            message: `got {{ ${read} }}`,
            deny: { conditions: { any: [{ key: `{{ ${read} }}`, operator: "Equals", value: "deny" }] } },
          },
        },
      ],
    },
  };
}

function run(doc: JsonObject, answer: (caller: ContextCaller | undefined) => ReturnType<ContextSources["apiCall"]>) {
  const callers: (ContextCaller | undefined)[] = [];
  const base = fakePorts();
  const context: ContextSources = {
    ...base.context,
    canLoad: () => true,
    apiCall: (_req, caller) => {
      callers.push(caller);
      return answer(caller);
    },
    configMap: (_ns, _name, caller) => {
      callers.push(caller);
      return answer(caller);
    },
  };
  const engine = createEngine({ ...base, context });
  const c = engine.compile(doc);
  if (!c.ok) throw new Error(c.problems.map((p) => p.message).join("; "));
  const [rule] = engine.validate(c.policy, {
    resource: pod({ name: "web", namespace: "tenant-a" }),
    operation: "CREATE",
    namespaceLabels: {},
  }).rules;
  return { rule, callers };
}

const apiCall = (extra: JsonObject = {}): JsonObject => ({
  name: "v",
  apiCall: { urlPath: "/api/v1/namespaces/tenant-b/configmaps/canary", jmesPath: "data.x", ...extra },
});

describe("context sources and the policy's namespace", () => {
  test("a namespaced Policy's apiCall and configMap reach the port with its namespace; a ClusterPolicy's with none", () => {
    const { callers } = run(
      policy("Policy", [apiCall(), { name: "cm", configMap: { name: "c", namespace: "" } }]),
      () => ok({ data: { x: "allow" } }),
    );
    assert.deepEqual(callers, [{ policyNamespace: "tenant-a" }, { policyNamespace: "tenant-a" }]);
    const cluster = run(policy("ClusterPolicy", [apiCall()]), () => ok({ data: { x: "allow" } }));
    assert.deepEqual(cluster.callers, [{ policyNamespace: "" }]);
    assert.equal(cluster.rule?.status, "pass");
  });

  for (const kind of ["refused", "not-ready", "unsupported"]) {
    test(`an answer of kind ${kind} is a rule error even with an apiCall default`, () => {
      const { rule } = run(policy("Policy", [apiCall({ default: "allow" })]), () => err(kind, `nope (${kind})`));
      assert.equal(rule?.status, "error");
      assert.match(rule?.message ?? "", new RegExp(`failed to load context entry v: nope \\(${kind}\\)`));
    });
  }

  test("a ConfigMap that cannot be read is an error in Kyverno's words; a refusal of Bylaw's own names the entry", () => {
    const cm = { name: "v", configMap: { name: "c", namespace: "" } };
    const missing = run(policy("ClusterPolicy", [cm], "v.data.x"), () =>
      err("context", 'failed to get configmap default/c : configmaps "c" not found'),
    );
    assert.equal(missing.rule?.status, "error");
    assert.match(
      missing.rule?.message ?? "",
      /failed to retrieve config map for context entry v: failed to get configmap default\/c : configmaps "c" not found/,
    );
    const refused = run(policy("Policy", [cm], "v.data.x"), () => err("refused", "nope (refused)"));
    assert.match(refused.rule?.message ?? "", /failed to load context entry v: nope \(refused\)/);
  });

  test("a call that failed (not found) takes the default, as in Kyverno", () => {
    const { rule } = run(policy("ClusterPolicy", [apiCall({ default: "deny" })]), () =>
      err("context", 'failed to GET resource with raw url: /x: configmaps "canary" not found'),
    );
    assert.equal(rule?.status, "fail");
    assert.match(rule?.message ?? "", /got deny/);
  });
});
