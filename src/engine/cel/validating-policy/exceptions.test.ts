/**
 * policies.kyverno.io PolicyExceptions on a ValidatingPolicy, as Kyverno's vpol engine applies
 * them: full exceptions skip (or pass) with rule "exception", partial ones feed `exceptions.*`,
 * condition errors follow the policy's failurePolicy, and only exceptions naming the policy by
 * kind and name, unexpired, from an allowed namespace count.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { err, ok } from "../../api/result.js";
import { createEngine } from "../../engine.js";
import type { AnyCompiledException } from "../../exceptions/cel/index.js";
import type { EngineRequest } from "../../pipeline/types.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { pod } from "../../../../test/support/builders.js";

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const engine = createEngine(fakePorts({}, NOW));
const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
};
const noLatest = {
  validations: [
    { expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message: "no latest tags" },
  ],
};

function compile(doc: JsonObject) {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}
const vp = (spec: JsonObject = noLatest, kind = "ValidatingPolicy") =>
  compile({
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "vp", namespace: "team" },
    spec: { matchConstraints: podRules, ...spec },
  });

function polex(name: string, spec: JsonObject, metadata: JsonObject = {}): AnyCompiledException {
  const r = engine.compileException({
    apiVersion: "policies.kyverno.io/v1",
    kind: "PolicyException",
    metadata: { name, namespace: "exceptions", ...metadata },
    spec: { policyRefs: [{ kind: "ValidatingPolicy", name: "vp" }], ...spec },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.exception;
}

const latest = (name: string, namespace = "team") =>
  pod({ name: name, namespace, containers: [{ name: "x", image: "nginx:latest" }] });
const forName = (name: string) => [{ name: "named", expression: `object.metadata.name == '${name}'` }];

function run(
  policy = vp(),
  resource: JsonObject = latest("tool"),
  extra: Partial<EngineRequest> = {},
): [string, string, string, string[] | undefined][] {
  return engine
    .validate(policy, { resource, operation: "CREATE", namespaceLabels: {}, ...extra })
    .rules.map((r) => [r.rule, r.status, r.message, r.exceptions ? [...r.exceptions] : undefined]);
}

describe("ValidatingPolicy with policies.kyverno.io PolicyExceptions", () => {
  test("a matching exception skips the policy: rule 'exception', Kyverno's message, the exception keys", () => {
    const exceptions = [polex("tool", { matchConditions: forName("tool") })];
    assert.deepEqual(run(vp(), latest("tool"), { exceptions }), [
      ["exception", "skip", "rule is skipped due to policy exception: exceptions/tool", ["exceptions/tool"]],
    ]);
    assert.deepEqual(run(vp(), latest("other"), { exceptions }), [["", "fail", "no latest tags", undefined]]);
  });

  test("reportResult pass reports pass; among several, the highest polex.kyverno.io/priority decides and every key is named", () => {
    const exceptions = [
      polex("a", { reportResult: "skip" }),
      polex("b", { reportResult: "pass" }, { labels: { "polex.kyverno.io/priority": "3" } }),
    ];
    assert.deepEqual(run(vp(), latest("tool"), { exceptions }), [
      [
        "exception",
        "pass",
        "rule is passed due to policy exception: exceptions/a, exceptions/b",
        ["exceptions/a", "exceptions/b"],
      ],
    ]);
    assert.deepEqual(run(vp(), latest("tool"), { exceptions: [polex("c", { reportResult: "pass" })] })[0]?.[1], "pass");
  });

  test("a partial exception (allowedValues, images) does not skip: the policy reads them as exceptions.*", () => {
    const policy = vp({
      validations: [
        {
          expression:
            "object.spec.containers.all(c, c.image in exceptions.allowedImages || !c.image.endsWith(':latest'))",
          messageExpression:
            "'allowed: ' + exceptions.allowedImages.join(',') + '|' + exceptions.allowedValues.join(',')",
        },
      ],
    });
    assert.deepEqual(
      run(policy, latest("tool"), { exceptions: [polex("img", { images: ["nginx:latest"], allowedValues: ["v"] })] }),
      [["", "pass", "success", undefined]],
    );
    assert.deepEqual(
      run(policy, latest("tool"), { exceptions: [polex("img", { images: ["redis:latest"], allowedValues: ["v"] })] }),
      [["", "fail", "allowed: redis:latest|v", undefined]],
    );
    assert.deepEqual(run(policy, latest("tool")), [["", "fail", "allowed: |", undefined]]);
  });

  test("an exception's condition error: an error under failurePolicy Fail, not matched under Ignore, ignored once a full exception matched", () => {
    const broken = polex("broken", {
      matchConditions: [{ name: "boom", expression: "object.metadata.labels.missing == 'x'" }],
    });
    const [row] = run(vp(), latest("tool"), { exceptions: [broken] });
    // As Kyverno's vpol engine reports an error of the policy's evaluation: rule "evaluation", cel-go's text.
    assert.deepEqual(row?.slice(0, 3), ["evaluation", "error", "failed to load context: no such key: labels"]);
    assert.deepEqual(
      run(vp({ ...noLatest, failurePolicy: "Ignore" }), latest("tool"), { exceptions: [broken] })[0]?.slice(0, 2),
      ["", "fail"],
    );
    assert.deepEqual(run(vp(), latest("tool"), { exceptions: [polex("full", {}), broken] })[0]?.slice(0, 2), [
      "exception",
      "skip",
    ]);
  });

  test("only exceptions naming the policy by kind and name count; expired ones and those outside --exception-namespace do not", () => {
    const other = polex("other", { policyRefs: [{ kind: "ValidatingPolicy", name: "not-vp" }] });
    const namespacedRef = polex("nref", { policyRefs: [{ kind: "NamespacedValidatingPolicy", name: "vp" }] });
    assert.deepEqual(run(vp(), latest("tool"), { exceptions: [other, namespacedRef] })[0]?.[1], "fail");
    assert.deepEqual(
      run(vp(noLatest, "NamespacedValidatingPolicy"), latest("tool"), { exceptions: [namespacedRef] })[0]?.[1],
      "skip",
    );
    assert.deepEqual(
      run(vp(), latest("tool"), { exceptions: [polex("old", { expiresAt: "2026-01-15T11:59:59Z" })] })[0]?.[1],
      "fail",
    );
    assert.deepEqual(
      run(vp(), latest("tool"), { exceptions: [polex("later", { expiresAt: "2026-01-15T12:00:01Z" })] })[0]?.[1],
      "skip",
    );
    assert.deepEqual(
      run(vp(), latest("tool"), { exceptions: [polex("ns", {})], exceptionNamespaces: ["elsewhere"] })[0]?.[1],
      "fail",
    );
    assert.deepEqual(
      run(vp(), latest("tool"), { exceptions: [polex("ns", {})], exceptionNamespaces: ["exceptions"] })[0]?.[1],
      "skip",
    );
  });

  test("exceptions are checked after matchConstraints and before the policy's matchConditions", () => {
    const policy = vp({ ...noLatest, matchConditions: [{ name: "never", expression: "false" }] });
    assert.deepEqual(run(policy, latest("tool"), { exceptions: [polex("full", {})] })[0]?.slice(0, 2), [
      "exception",
      "skip",
    ]);
    assert.deepEqual(
      run(
        policy,
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } },
        { exceptions: [polex("full", {})] },
      ),
      [],
    );
  });

  test("a kyverno.io/v2 exception does not apply to a ValidatingPolicy, even one naming it", () => {
    const classic = engine.compileException({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "c", namespace: "x" },
      spec: {
        exceptions: [{ policyName: "vp", ruleNames: ["*"] }],
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
      },
    });
    assert.ok(classic.ok);
    if (classic.ok) assert.deepEqual(run(vp(), latest("tool"), { exceptions: [classic.exception] })[0]?.[1], "fail");
  });
});

describe("tenant-isolation rule 3: a namespaced exception's globalContext read is its own namespace's", () => {
  test("the port is asked on behalf of the exception's namespace, not the cluster-wide policy's", () => {
    const asked: string[] = [];
    const ports = fakePorts({}, NOW);
    const watching = createEngine({
      ...ports,
      context: {
        ...ports.context,
        canLoad: () => true,
        globalReference: (_name, caller) => {
          asked.push(caller?.policyNamespace ?? "<none>");
          return caller?.policyNamespace ? err("refused", "refused") : ok({ x: 1 });
        },
      },
    });
    const policy = watching.compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "vp" },
      spec: { matchConstraints: podRules, ...noLatest },
    });
    const exception = watching.compileException({
      apiVersion: "policies.kyverno.io/v1",
      kind: "PolicyException",
      metadata: { name: "peek", namespace: "tenant-a" },
      spec: {
        policyRefs: [{ kind: "ValidatingPolicy", name: "vp" }],
        matchConditions: [{ name: "peek", expression: "globalContext.Get('admin', 'x') == 1" }],
      },
    });
    if (!policy.ok || !exception.ok) throw new Error("does not compile");
    const rules = watching.validate(policy.policy, {
      resource: latest("tool"),
      operation: "CREATE",
      namespaceLabels: {},
      exceptions: [exception.exception],
    }).rules;
    assert.deepEqual(asked, ["tenant-a"]);
    assert.equal(rules[0]?.status, "error");
    // Kyverno's vpol engine: the exception's condition error is the policy's evaluation error, in cel-go's words.
    assert.equal(rules[0]?.rule, "evaluation");
    assert.equal(rules[0]?.message, "failed to load context: failed to get global reference: refused");
  });
});
