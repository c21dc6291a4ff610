/** The status Bylaw writes on a policies.kyverno.io policy (cel-policy-status.ts, via policy-status.ts). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { desiredStatus, statusPatch, statusPath, type PolicyOutcome } from "./policy-status.js";

const engine = createEngine(fakePorts());
const vp: JsonObject = {
  apiVersion: "policies.kyverno.io/v1beta1",
  kind: "ValidatingPolicy",
  metadata: { name: "vp" },
  spec: {
    matchConstraints: {
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
    },
    validations: [{ expression: "true" }],
  },
};
const compiledVp = (() => {
  const c = engine.compile(vp);
  assert.ok(c.ok);
  return c.policy;
})();

function outcome(over: Partial<PolicyOutcome>): PolicyOutcome {
  return {
    kind: "ValidatingPolicy",
    namespace: "",
    name: "vp",
    uid: "u1",
    resourceVersion: "3",
    generation: 1,
    rules: [],
    status: undefined,
    problems: [],
    ...over,
  };
}
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const cs = (s: JsonObject) => s["conditionStatus"] as { ready: boolean; message: string; conditions: JsonObject[] };

describe("status of the policies.kyverno.io kinds", () => {
  test("served and evaluated: ready, PolicyCached and WebhookConfigured True with Kyverno's texts", () => {
    const s = desiredStatus(outcome({ compiled: compiledVp }), T0);
    assert.equal(cs(s).ready, true);
    assert.equal(cs(s).message, "");
    assert.deepEqual(cs(s).conditions, [
      {
        type: "PolicyCached",
        status: "True",
        reason: "Succeeded",
        message: "Policy compiled and cached.",
        lastTransitionTime: "2026-11-25T12:00:00Z",
        observedGeneration: 1,
      },
      {
        type: "WebhookConfigured",
        status: "True",
        reason: "Succeeded",
        message: "Webhook configured.",
        lastTransitionTime: "2026-11-25T12:00:00Z",
        observedGeneration: 1,
      },
    ]);
    assert.equal(s["generated"], false);
  });

  test("invalid: not ready, PolicyCached False naming the problem, not configured in the webhook", () => {
    const s = desiredStatus(outcome({ problems: ["spec.validations[0].expression: compilation failed"] }), T0);
    assert.equal(cs(s).ready, false);
    assert.match(cs(s).message, /spec\.validations\[0\]\.expression: compilation failed/);
    const [cached, webhook] = cs(s).conditions;
    assert.equal(cached?.["status"], "False");
    assert.equal(cached?.["reason"], "Failed");
    assert.equal(webhook?.["status"], "False");
    assert.equal(webhook?.["message"], "Policy is not configured in the webhook.");
  });

  test("served but not evaluated (MutatingPolicy): not ready, with the reason; registered in the webhook", () => {
    const s = desiredStatus(
      outcome({
        kind: "MutatingPolicy",
        compiled: compiledVp,
        notEvaluated: "MutatingPolicy vp: Bylaw does not evaluate MutatingPolicy yet",
      }),
      T0,
    );
    assert.equal(cs(s).ready, false);
    assert.match(cs(s).message, /Bylaw does not evaluate MutatingPolicy yet/);
    assert.deepEqual(
      cs(s).conditions.map((c) => [c["type"], c["status"]]),
      [
        ["PolicyCached", "False"],
        ["WebhookConfigured", "True"],
      ],
    );
  });

  test("lastTransitionTime moves only when a condition's status flips; other conditions are kept", () => {
    const first = desiredStatus(outcome({ compiled: compiledVp }), T0);
    const stored: JsonObject = {
      ...first,
      conditionStatus: {
        ...cs(first),
        conditions: [
          ...cs(first).conditions,
          { type: "Other", status: "True", reason: "X", message: "m", lastTransitionTime: "2020-01-01T00:00:00Z" },
        ],
      },
    };
    const again = desiredStatus(outcome({ compiled: compiledVp, status: stored }), T0 + 60_000);
    assert.deepEqual(
      cs(again).conditions.map((c) => c["lastTransitionTime"]),
      ["2020-01-01T00:00:00Z", "2026-11-25T12:00:00Z", "2026-11-25T12:00:00Z"],
    );
    const broken = desiredStatus(outcome({ problems: ["x"], status: stored }), T0 + 60_000);
    assert.equal(
      cs(broken).conditions.find((c) => c["type"] === "PolicyCached")?.["lastTransitionTime"],
      "2026-11-25T12:01:00Z",
    );
  });

  test("kept out of admission (evaluation.admission.enabled: false): no WebhookConfigured condition, ready on PolicyCached alone", () => {
    const c = engine.compile({
      ...vp,
      spec: { ...(vp["spec"] as JsonObject), evaluation: { admission: { enabled: false } } },
    });
    assert.ok(c.ok);
    const s = desiredStatus(outcome({ compiled: c.policy }), T0);
    assert.deepEqual(
      cs(s).conditions.map((x) => x["type"]),
      ["PolicyCached"],
    );
    assert.equal(cs(s).ready, true);
  });

  test("status paths at the CRDs' storage version", () => {
    assert.equal(
      statusPath({ kind: "ValidatingPolicy", namespace: "", name: "vp" }),
      "/apis/policies.kyverno.io/v1beta1/validatingpolicies/vp/status",
    );
    assert.equal(
      statusPath({ kind: "NamespacedValidatingPolicy", namespace: "team-a", name: "n" }),
      "/apis/policies.kyverno.io/v1beta1/namespaces/team-a/namespacedvalidatingpolicies/n/status",
    );
    assert.equal(
      statusPath({ kind: "MutatingPolicy", namespace: "", name: "m" }),
      "/apis/policies.kyverno.io/v1beta1/mutatingpolicies/m/status",
    );
  });

  test("status.autogen: Kyverno's pod-controller configs from the stored spec, served or not; {} when the policy has none", () => {
    const spec = vp["spec"] as JsonObject;
    const s = desiredStatus(outcome({ compiled: compiledVp, spec }), T0);
    const configs = (s["autogen"] as { configs: Record<string, { targets: JsonObject[]; spec: JsonObject }> }).configs;
    assert.deepEqual(Object.keys(configs), ["cronjobs", "defaults"]);
    assert.deepEqual(configs["cronjobs"]?.targets, [
      { group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob" },
    ]);
    assert.deepEqual(
      configs["defaults"]?.targets.map((t) => t["kind"]),
      ["DaemonSet", "Deployment", "ReplicaSet", "StatefulSet", "Job"],
    );
    assert.deepEqual(configs["defaults"]?.spec["matchConstraints"], {
      resourceRules: [
        {
          apiGroups: ["apps"],
          apiVersions: ["v1"],
          resources: ["daemonsets", "deployments", "replicasets", "statefulsets"],
          operations: ["CREATE"],
        },
        { apiGroups: ["batch"], apiVersions: ["v1"], resources: ["jobs"], operations: ["CREATE"] },
      ],
    });
    assert.deepEqual(
      desiredStatus(outcome({ problems: ["x"], spec }), T0)["autogen"],
      s["autogen"],
      "an invalid policy's status shows its autogen too, as Kyverno's",
    );
    const services = {
      ...spec,
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["services"] }],
      },
    };
    assert.deepEqual(desiredStatus(outcome({ compiled: compiledVp, spec: services }), T0)["autogen"], {});
  });

  test("a stale status.autogen is replaced: the patch removes the configs the spec no longer generates", () => {
    const spec = { ...(vp["spec"] as JsonObject), autogen: { podControllers: { controllers: ["cronjobs"] } } };
    const stored = desiredStatus(outcome({ compiled: compiledVp, spec: vp["spec"] as JsonObject }), T0);
    const o = outcome({ compiled: compiledVp, spec, status: stored });
    const desired = desiredStatus(o, T0);
    assert.deepEqual(Object.keys((desired["autogen"] as { configs: JsonObject }).configs), ["cronjobs"]);
    const patch = statusPatch(o, desired)["status"] as { autogen: { configs: JsonObject } };
    assert.equal(patch.autogen.configs["defaults"], null);
  });

  test("MutatingPolicy gets its own rewrite; the kinds whose CRD has no status.autogen (GeneratingPolicy, DeletingPolicy) get none", () => {
    const mspec: JsonObject = {
      ...(vp["spec"] as JsonObject),
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}" },
        },
      ],
    };
    const m = desiredStatus(
      outcome({ kind: "MutatingPolicy", compiled: compiledVp, notEvaluated: "not yet", spec: mspec }),
      T0,
    );
    const mutation = (
      (m["autogen"] as { configs: Record<string, { spec: JsonObject }> }).configs["defaults"]?.spec[
        "mutations"
      ] as JsonObject[]
    )[0];
    assert.deepEqual(mutation?.["applyConfiguration"], {
      expression:
        "Object{spec: Object.spec{template: Object.spec.template{metadata: Object.metadata{labels: {'a': 'b'}}}}}",
    });
    assert.equal(
      "autogen" in
        desiredStatus(
          outcome({ kind: "GeneratingPolicy", problems: ["not evaluated"], spec: vp["spec"] as JsonObject }),
          T0,
        ),
      false,
    );
  });
});

describe("status of the policies.kyverno.io kinds with registration", () => {
  test("served but refused by the API server: not ready, WebhookConfigured False with its message", () => {
    const s = desiredStatus(outcome({ compiled: compiledVp }), T0, {
      registered: false,
      message: "the API server refuses the webhook: estimated cost exceeds budget",
    });
    assert.equal(cs(s).ready, false);
    assert.match(cs(s).message, /estimated cost exceeds budget/);
    const webhook = cs(s).conditions.find((c) => c["type"] === "WebhookConfigured");
    assert.equal(webhook?.["status"], "False");
    assert.match(webhook?.["message"] as string, /^Policy is not configured in the webhook\. the API server refuses/);
    assert.equal(cs(desiredStatus(outcome({ compiled: compiledVp }), T0, { registered: true })).ready, true);
  });
});

describe("RBACPermissionsGranted on the policies.kyverno.io kinds", () => {
  const rbac = (s: JsonObject) => cs(s).conditions.find((c) => c["type"] === "RBACPermissionsGranted");

  test("checked and granted: True, Kyverno's text, and the policy ready", () => {
    const s = desiredStatus(outcome({ compiled: compiledVp }), T0, undefined, []);
    assert.deepEqual(rbac(s), {
      type: "RBACPermissionsGranted",
      status: "True",
      reason: "Succeeded",
      message: "Policy is ready for reporting.",
      lastTransitionTime: "2026-11-25T12:00:00Z",
      observedGeneration: 1,
    });
    assert.equal(cs(s).ready, true);
  });

  test("checked and refused: False naming each refusal, and the policy not ready", () => {
    const s = desiredStatus(outcome({ compiled: compiledVp }), T0, undefined, ["list /v1, Resource=pods: "]);
    assert.equal(rbac(s)?.["status"], "False");
    assert.equal(rbac(s)?.["reason"], "Failed");
    assert.equal(
      rbac(s)?.["message"],
      "Policy is not ready for reporting, missing permissions: list /v1, Resource=pods: .",
    );
    assert.equal(cs(s).ready, false);
    assert.match(cs(s).message, /missing permissions/);
  });

  test("not checked (no background scans here): no condition, and one written before is removed", () => {
    const before = desiredStatus(outcome({ compiled: compiledVp }), T0, undefined, ["list /v1, Resource=pods: "]);
    const s = desiredStatus(outcome({ compiled: compiledVp, status: before }), T0);
    assert.equal(rbac(s), undefined);
    assert.equal(cs(s).ready, true);
  });
});
