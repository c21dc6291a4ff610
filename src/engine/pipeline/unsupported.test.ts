/** Rules Bylaw cannot run are decided once at compile time and answer `error` after match, exceptions and preconditions. */
import { kyvernoCompiledRules } from "../policy/compiled-policy.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { compileException } from "../exceptions/index.js";
import { compiledAction, type CompiledPolicy } from "../policy/compiled-policy.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, deployment, pod } from "../../../test/support/builders.js";
import { signed, testKey } from "../../../test/support/signed-manifests.js";

const engine = createEngine(fakePorts());
const podMatch = { any: [{ resources: { kinds: ["Pod"] } }] };
/** A keyless attestor: Bylaw cannot reach Fulcio and Rekor, so every image it concerns is an error naming it. */
const verifyImages = [
  {
    imageReferences: ["*"],
    mutateDigest: false,
    attestors: [{ entries: [{ keyless: { subject: "s", issuer: "i" } }] }],
  },
];
/** celPreconditions outside validate.cel: a rule-level feature Bylaw does not run, carried by autogen. */
const celPreconditions = [{ name: "x", expression: "true" }];

function compile(doc: JsonObject): CompiledPolicy {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}
const validate = (p: CompiledPolicy, resource: JsonObject, extra: object = {}) =>
  engine
    .validate(p, { resource, operation: "CREATE", namespaceLabels: {}, ...extra })
    .rules.map((r) => [r.rule, r.status, r.type]);

describe("unsupported features", () => {
  test("decided at compile time for the rule and its autogen copies", () => {
    const p = compile(
      clusterPolicy("v", [{ name: "check", match: podMatch, celPreconditions, verifyImages }], {
        validationFailureAction: "Enforce",
      }),
    );
    assert.deepEqual(
      kyvernoCompiledRules(p).map((r) => [r.name, r.unsupported !== undefined]),
      [
        ["check", true],
        ["autogen-check", true],
        ["autogen-cronjob-check", true],
      ],
    );
    assert.equal(
      kyvernoCompiledRules(p).every((r) => r.fastPass === undefined),
      true,
    );
  });

  test("a verifyImages rule with a rule-level unsupported feature answers error in the validate phase, with its Enforce action", () => {
    const p = compile(
      clusterPolicy("v", [{ name: "check", match: podMatch, celPreconditions, verifyImages }], {
        validationFailureAction: "Enforce",
      }),
    );
    assert.deepEqual(validate(p, pod({ name: "web" })), [["check", "error", "ImageVerify"]]);
    assert.deepEqual(validate(p, deployment("web")), [["autogen-check", "error", "ImageVerify"]]);
    assert.equal(kyvernoCompiledRules(p)[0]?.action, "Enforce");
  });

  test("an attestor Bylaw cannot run is an error naming its field, on the Pod and through autogen", () => {
    const p = compile(
      clusterPolicy(
        "v",
        [{ name: "check", match: podMatch, verifyImages: [{ ...verifyImages[0], verifyDigest: false }] }],
        { validationFailureAction: "Enforce" },
      ),
    );
    assert.equal(kyvernoCompiledRules(p)[0]?.unsupported, undefined);
    for (const [resource, rule] of [
      [pod({ name: "web" }), "check"],
      [deployment("web"), "autogen-check"],
    ] as const) {
      const r = engine.validate(p, { resource, operation: "CREATE", namespaceLabels: {} }).rules;
      assert.deepEqual(
        r.map((x) => [x.rule, x.status, x.type]),
        [[rule, "error", "ImageVerify"]],
      );
      assert.match(
        r[0]?.message ?? "",
        /^failed to verify image docker\.io\/nginx:1\.27: \.attestors\[0\]\.entries\[0\]\.keyless: keyless verification needs Fulcio/,
      );
    }
  });

  test("an entry's failureAction Enforce makes the rule Enforce", () => {
    const p = compile(
      clusterPolicy("v", [
        { name: "check", match: podMatch, verifyImages: [{ ...verifyImages[0], failureAction: "Enforce" }] },
      ]),
    );
    assert.equal(kyvernoCompiledRules(p)[0]?.action, "Enforce");
  });

  test("no match, unmet preconditions and a PolicyException keep their answers", () => {
    const pre = { all: [{ key: "{{ request.object.metadata.name }}", operator: "Equals", value: "web" }] };
    const p = compile(clusterPolicy("v", [{ name: "check", match: podMatch, preconditions: pre, verifyImages }]));
    assert.deepEqual(validate(p, pod({ name: "other" })), [["check", "skip", "ImageVerify"]]);
    assert.deepEqual(validate(p, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web" } }), []);
    const ex = compileException({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "e", namespace: "default" },
      spec: {
        exceptions: [{ policyName: "v", ruleNames: ["check"] }],
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
      },
    });
    assert.ok(ex.ok);
    assert.deepEqual(validate(p, pod({ name: "web" }), { exceptions: [ex.exception] }), [
      ["check", "skip", "ImageVerify"],
    ]);
  });

  test("validate.manifests runs; what it cannot check offline answers error naming the field, never pass", () => {
    const rule = (manifests: JsonObject) =>
      compile(clusterPolicy("m", [{ name: "r", match: podMatch, validate: { manifests } }]));
    const keyless = rule({ attestors: [{ entries: [{ keyless: { subject: "me@example.com" } }] }] });
    assert.equal(kyvernoCompiledRules(keyless)[0]?.unsupported, undefined);
    // A signature is there to check, and only Rekor/Fulcio could check it.
    const withSignature = signed(pod({ name: "web" }), [testKey()]);
    const [r] = engine.validate(keyless, { resource: withSignature, operation: "CREATE", namespaceLabels: {} }).rules;
    assert.equal(r?.status, "error");
    assert.match(
      r?.message ?? "",
      /entries\[0\]\.keyless: keyless signatures need Fulcio roots and the Rekor transparency log/,
    );
    const dryRun = rule({
      attestors: [{ entries: [{ keys: { publicKeys: "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----" } }] }],
      dryRun: { enable: true },
    });
    assert.deepEqual(validate(dryRun, pod({ name: "web" })), [["r", "error", "Validation"]]);
  });

  test("a pattern rule with celPreconditions never takes the fast pass", () => {
    const p = compile(
      clusterPolicy("c", [
        {
          name: "r",
          match: podMatch,
          celPreconditions: [{ name: "x", expression: "false" }],
          validate: { pattern: { metadata: { name: "?*" } } },
        },
      ]),
    );
    assert.deepEqual(validate(p, pod({ name: "web" })), [["r", "error", "Validation"]]);
  });

  test("mutate and generate rules with an unsupported feature answer error and change nothing", () => {
    const m = compile(
      clusterPolicy("m", [
        {
          name: "r",
          match: podMatch,
          celPreconditions: [{ name: "x", expression: "true" }],
          mutate: { patchStrategicMerge: { metadata: { labels: { a: "b" } } } },
        },
      ]),
    );
    const mutated = engine.mutate(m, { resource: pod({ name: "web" }), operation: "CREATE", namespaceLabels: {} });
    assert.deepEqual(
      mutated.rules.map((r) => r.status),
      ["error"],
    );
    assert.deepEqual(mutated.patchedResource, pod({ name: "web" }));
    const g = compile(
      clusterPolicy("g", [
        {
          name: "r",
          match: podMatch,
          celPreconditions: [{ name: "x", expression: "true" }],
          generate: {
            apiVersion: "v1",
            kind: "ConfigMap",
            name: "c",
            namespace: "default",
            data: { data: { a: "b" } },
          },
        },
      ]),
    );
    const generated = engine.generate(g, { resource: pod({ name: "web" }), operation: "CREATE", namespaceLabels: {} }, {
      find: () => undefined,
      list: () => [],
    } as never);
    assert.deepEqual(
      generated.rules.map((r) => [r.status, r.generated]),
      [["error", undefined]],
    );
  });

  test("a CEL policy kind compiles to one error per resource, its failurePolicy and Deny action kept", () => {
    const p = compile({
      apiVersion: "admissionregistration.k8s.io/v2alpha1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "vp" },
      spec: { failurePolicy: "Ignore", validationActions: ["Audit"] },
    });
    assert.equal(
      p.language === "unsupported" ? p.unsupportedKind : p.language,
      "admissionregistration.k8s.io/v2alpha1 MutatingAdmissionPolicy",
    );
    assert.deepEqual(validate(p, pod({ name: "web" })), [["", "error", "Validation"]]);
    assert.equal(p.failurePolicy, "Ignore");
    assert.equal(p.document["kind"], "MutatingAdmissionPolicy", "the policy's own document, not a stand-in");
    assert.equal(compiledAction(p), "Audit");
    assert.equal("rules" in p, false, "no placeholder rule: the error is its body's");
    const n = compile({
      // A version Bylaw does not run (ImageValidatingPolicy runs at v1alpha1, v1beta1 and v1).
      apiVersion: "policies.kyverno.io/v2alpha1",
      kind: "NamespacedImageValidatingPolicy",
      metadata: { name: "nvp", namespace: "team" },
      spec: {},
    });
    assert.deepEqual(validate(n, pod({ name: "web", namespace: "other" })), []);
    assert.deepEqual(
      validate(n, pod({ name: "web", namespace: "team" })).map((r) => r[1]),
      ["error"],
    );
  });

  test("a kind Bylaw does not run: its error names the kind, for every resource in scope but subresource requests", () => {
    const p = compile({
      apiVersion: "kyverno.io/v2",
      kind: "ClusterCleanupPolicy",
      metadata: { name: "clean" },
      spec: { schedule: "*/5 * * * *", match: { any: [{ resources: { kinds: ["Pod"] } }] } },
    });
    const answer = (resource: JsonObject, extra: object = {}) =>
      engine.validate(p, { resource, operation: "CREATE", namespaceLabels: {}, ...extra }).rules;
    const message =
      "kyverno.io/v2 ClusterCleanupPolicy policies are not supported by Bylaw yet; policy clean was not evaluated";
    // Any kind, whatever its match names: nothing of it was evaluated.
    assert.deepEqual(answer(deployment("d")), [{ rule: "", type: "Validation", status: "error", message }]);
    assert.deepEqual(answer(pod({ name: "web" }), { operation: "DELETE", oldResource: pod({ name: "web" }) }), [
      { rule: "", type: "Validation", status: "error", message },
    ]);
    assert.deepEqual(answer(pod({ name: "web" }), { subresource: "status" }), []);
    assert.deepEqual(
      answer(pod({ name: "web" }), { subresource: "ephemeralcontainers" }).map((r) => r.status),
      ["error"],
    );
    assert.deepEqual(
      engine.mutate(p, { resource: pod({ name: "web" }), operation: "CREATE", namespaceLabels: {} }).rules,
      [],
    );
  });
});
