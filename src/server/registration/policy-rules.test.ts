/**
 * Registration built from the rules kept per policy (policy-rules.ts) is the same as a build from
 * nothing, through a policy set's life: policies added one at a time, changed (compiled again),
 * deleted, discovery changing what it serves, and the policy webhook's check of a candidate.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { buildConfigurations } from "./build-configurations.js";
import { PolicyRules } from "./policy-rules.js";
import type { KindResolver } from "./webhook-rules.js";
import type { RegistrationTarget } from "../../controllers/registration/types.js";
import { withEveryTimeout } from "../admission/webhook-groups.js";

const engine = createEngine(fakePorts());
const compile = (doc: JsonObject): CompiledPolicy => {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
};
const validate = { message: "m", pattern: { metadata: { labels: { app: "?*" } } } };
const kinds = (...k: string[]): JsonObject => ({ any: [{ resources: { kinds: k } }] });
const target: RegistrationTarget = {
  endpoint: { kind: "service", name: "bylaw", namespace: "bylaw", port: 443 },
  caPem: "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n",
  ownNamespace: "bylaw",
};
const groups = withEveryTimeout({ defaultSeconds: 10, extra: [], fineGrained: true });

/** A varied set: kinds built in and not, generate, mutate, Ignore, another timeout, matchConditions, a namespaced Policy, a ValidatingPolicy. */
function policies(tag: string): CompiledPolicy[] {
  return [
    compile(clusterPolicy(`pods-${tag}`, [{ name: "r", match: kinds("Pod"), validate }])),
    compile(
      clusterPolicy(`widgets-${tag}`, [
        { name: "r", match: kinds("Widget", "example.com/v1/Gadget/status"), validate },
      ]),
    ),
    compile(
      clusterPolicy(`ignore-${tag}`, [{ name: "r", match: kinds("ConfigMap"), validate }], {
        failurePolicy: "Ignore",
        webhookTimeoutSeconds: 20,
      }),
    ),
    compile(
      clusterPolicy(`mutate-${tag}`, [
        {
          name: "m",
          match: kinds("Deployment"),
          mutate: { patchStrategicMerge: { metadata: { labels: { a: "b" } } } },
        },
      ]),
    ),
    compile(
      clusterPolicy(`generate-${tag}`, [
        {
          name: "g",
          match: kinds("Namespace"),
          generate: {
            apiVersion: "v1",
            kind: "ConfigMap",
            name: "x",
            namespace: "{{request.object.metadata.name}}",
            data: {},
          },
        },
      ]),
    ),
    compile(
      clusterPolicy(`own-${tag}`, [{ name: "r", match: kinds("Secret"), validate }], {
        webhookConfiguration: { matchConditions: [{ name: "c", expression: "true" }] },
      }),
    ),
    compile({
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      metadata: { name: `team-${tag}`, namespace: "team-a" },
      spec: { validationFailureAction: "Enforce", rules: [{ name: "r", match: kinds("Service", "Node"), validate }] },
    }),
    compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: `vpol-${tag}` },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        },
        validations: [{ expression: "true" }],
      },
    }),
  ];
}

/** Discovery that serves Widget, and Gadget only once `gadgets` is set (a CRD installed later). */
function discovery(): { resolve: KindResolver; version: () => number; install: () => void } {
  let version = 0;
  let gadgets = false;
  return {
    resolve: (s) => {
      if (s.kind === "Widget") return [{ group: "example.com", resource: "widgets", namespaced: true }];
      if (s.kind === "Gadget" && gadgets)
        return [{ group: "example.com", resource: "gadgets/status", namespaced: true }];
      return [];
    },
    version: () => version,
    install: () => {
      gadgets = true;
      version++;
    },
  };
}

describe("registration from kept per-policy rules equals a build from nothing", () => {
  test("policies added one at a time, changed, deleted; discovery changing; a candidate checked", () => {
    const d = discovery();
    const kept = new PolicyRules(d.resolve, d.version);
    const same = (set: readonly CompiledPolicy[], step: string): void => {
      const incremental = buildConfigurations(set, groups, target, kept);
      const full = buildConfigurations(set, groups, target, d.resolve);
      assert.deepEqual(incremental, full, step);
    };
    const all = [...policies("a"), ...policies("b")];
    const set: CompiledPolicy[] = [];
    for (const p of all) {
      set.push(p);
      same(set, `after adding ${p.name}`);
    }
    // A candidate (the policy webhook's check) is a new compiled object beside the set.
    const [candidate] = policies("a");
    same([...set.slice(1), candidate!], "with a candidate in place of its namesake");
    // A changed policy is a new compiled object under the same name.
    const changed = compile(clusterPolicy("pods-a", [{ name: "r", match: kinds("Service"), validate }]));
    set[0] = changed;
    same(set, "after pods-a changed to Services");
    d.install();
    same(set, "after discovery began serving Gadget");
    assert.ok(
      JSON.stringify(buildConfigurations(set, groups, target, kept).validating).includes("gadgets/status"),
      "the kept rules were worked out again once discovery changed",
    );
    while (set.length > 0) {
      set.splice(Math.floor(set.length / 2), 1);
      same(set, `with ${set.length} left`);
    }
  });

  test("a policy's rules are worked out once while discovery is unchanged", () => {
    let calls = 0;
    const kept = new PolicyRules(() => {
      calls++;
      return [{ group: "example.com", resource: "widgets", namespaced: true }];
    });
    const set = policies("a");
    buildConfigurations(set, groups, target, kept);
    const first = calls;
    assert.ok(first > 0);
    buildConfigurations(set, groups, target, kept);
    buildConfigurations([...set, ...policies("b").slice(0, 2)], groups, target, kept);
    assert.ok(calls > first, "the new policies were resolved");
    const afterNew = calls;
    buildConfigurations(set, groups, target, kept);
    assert.equal(calls, afterNew, "nothing resolved again for policies already seen");
  });
});
