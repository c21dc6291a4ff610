/** validate.cel in ClusterPolicy rules, end to end through the engine: results, messages, errors. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { EngineRequest } from "../../pipeline/types.js";
import { compileException } from "../../exceptions/index.js";
import { EvaluationInterrupted, isInterruption } from "../../interrupt/index.js";
import { ok } from "../../api/result.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { clusterPolicy, deployment, pod } from "../../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const podMatch = { any: [{ resources: { kinds: ["Pod"] } }] };

function compile(doc: JsonObject): CompiledPolicy {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function celPolicy(cel: JsonObject, extra: JsonObject = {}): CompiledPolicy {
  return compile(clusterPolicy("cel-policy", [{ name: "check", match: podMatch, validate: { cel }, ...extra }]));
}

function run(p: CompiledPolicy, resource: JsonObject, extra: Partial<EngineRequest> = {}): [string, string, string][] {
  return engine
    .validate(p, { resource, operation: "CREATE", namespaceLabels: {}, ...extra })
    .rules.map((r) => [r.rule, r.status, r.message]);
}

const noLatest = {
  expressions: [
    { expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message: "no latest tags" },
  ],
};

describe("validate.cel", () => {
  test("passes with Kyverno's message and fails with the validation's message", () => {
    const p = celPolicy(noLatest);
    assert.deepEqual(run(p, pod({ name: "a" })), [["check", "pass", "Validation rule 'check' passed."]]);
    assert.deepEqual(run(p, pod({ name: "b", containers: [{ name: "x", image: "nginx:latest" }] })), [
      ["check", "fail", "no latest tags"],
    ]);
  });

  test("autogen copies rewrite object.spec for Pod controllers", () => {
    const p = celPolicy(noLatest);
    assert.deepEqual(run(p, deployment("d", {}, [{ name: "x", image: "nginx:latest" }])), [
      ["autogen-check", "fail", "no latest tags"],
    ]);
  });

  test("messageExpression wins; then message; then validate.message; then 'failed expression'", () => {
    const bad = pod({ name: "b", containers: [{ name: "x", image: "nginx:latest" }] });
    const withExpr = celPolicy({
      expressions: [
        { expression: "false", message: "m", messageExpression: "'pod ' + object.metadata.name + ' refused'" },
      ],
    });
    assert.equal(run(withExpr, bad)[0]?.[2], "pod b refused");
    const emptyExpr = celPolicy({
      expressions: [{ expression: "false", message: "fallback", messageExpression: "'  '" }],
    });
    assert.equal(run(emptyExpr, bad)[0]?.[2], "fallback");
    const ruleMessage = compile(
      clusterPolicy("p", [
        {
          name: "check",
          match: podMatch,
          validate: { message: "from the rule", cel: { expressions: [{ expression: "false" }] } },
        },
      ]),
    );
    assert.equal(run(ruleMessage, bad)[0]?.[2], "from the rule");
    const none = celPolicy({ expressions: [{ expression: " 1 > 2 " }] });
    assert.equal(run(none, bad)[0]?.[2], "failed expression: 1 > 2");
  });

  test("variables are reachable as variables.<name>, also from later variables", () => {
    const p = celPolicy({
      variables: [
        { name: "images", expression: "object.spec.containers.map(c, c.image)" },
        { name: "untagged", expression: "variables.images.filter(i, !i.contains(':'))" },
      ],
      expressions: [
        {
          expression: "size(variables.untagged) == 0",
          messageExpression: "'untagged: ' + variables.untagged.join(', ')",
        },
      ],
    });
    assert.deepEqual(
      run(
        p,
        pod({
          name: "a",
          containers: [
            { name: "x", image: "nginx" },
            { name: "y", image: "redis:7" },
          ],
        }),
      ),
      [["check", "fail", "untagged: nginx"]],
    );
    assert.equal(run(p, pod({ name: "a" }))[0]?.[1], "pass");
  });

  test("a variable that fails is an error only where it is read; a variable reads only earlier ones", () => {
    const unused = celPolicy({
      variables: [{ name: "broken", expression: "object.spec.nope" }],
      expressions: [{ expression: "true" }],
    });
    assert.equal(run(unused, pod({ name: "a" }))[0]?.[1], "pass");
    const used = celPolicy({
      variables: [{ name: "broken", expression: "object.spec.nope" }],
      expressions: [{ expression: "variables.broken == 1" }],
    });
    assert.deepEqual(run(used, pod({ name: "a" })), [
      [
        "check",
        "fail",
        "expression 'variables.broken == 1' resulted in error: composited variable \"broken\" fails to evaluate: no such key: nope",
      ],
    ]);
    const forward = celPolicy({
      variables: [
        { name: "a", expression: "variables.b" },
        { name: "b", expression: "1" },
      ],
      expressions: [{ expression: "true" }],
    });
    assert.match(
      run(forward, pod({ name: "a" }))[0]?.[2] ?? "",
      /validate\.cel\.variables\[0\]\.expression: compilation failed: .*undefined field 'b'/,
    );
  });

  test("celPreconditions: not met is a skip; met runs the validations", () => {
    const p = celPolicy(noLatest, {
      celPreconditions: [{ name: "only-web", expression: "object.metadata.name.startsWith('web')" }],
    });
    assert.deepEqual(run(p, pod({ name: "db", containers: [{ name: "x", image: "nginx:latest" }] })), [
      ["check", "skip", "cel preconditions not met"],
    ]);
    assert.equal(run(p, pod({ name: "web-1", containers: [{ name: "x", image: "nginx:latest" }] }))[0]?.[1], "fail");
  });

  test("a celPrecondition that errors fails the rule with Kubernetes' text for an expression error, as Kyverno reports it", () => {
    const p = celPolicy(noLatest, {
      celPreconditions: [{ name: "lb", expression: "object.spec.type == 'LoadBalancer'" }],
    });
    assert.deepEqual(run(p, pod({ name: "a" })), [
      ["check", "fail", "expression 'object.spec.type == 'LoadBalancer'' resulted in error: no such key: type"],
    ]);
  });

  test("an expression's error quotes the expression as written, its trailing newline or spaces included, as Kyverno", () => {
    const p = celPolicy({ expressions: [{ expression: "object.spec.nothere.all(c, true)\n" }] });
    assert.deepEqual(run(p, pod({ name: "a" })), [
      ["check", "fail", "expression 'object.spec.nothere.all(c, true)\n' resulted in error: no such key: nothere"],
    ]);
  });

  test("request, oldObject and namespaceObject are set as Kubernetes sets them", () => {
    const p = celPolicy({
      expressions: [
        {
          expression:
            "request.operation == 'UPDATE' && oldObject.metadata.name == 'a' && namespaceObject.metadata.name == 'team' && namespaceObject.metadata.labels.env == 'prod'",
        },
      ],
    });
    const resource = pod({ name: "a", namespace: "team" });
    assert.equal(
      run(p, resource, { operation: "UPDATE", oldResource: resource, namespaceLabels: { env: "prod" } })[0]?.[1],
      "pass",
    );
    const created = celPolicy({ expressions: [{ expression: "oldObject == null && request.operation == 'CREATE'" }] });
    assert.equal(run(created, resource)[0]?.[1], "pass");
    const cluster = compile(
      clusterPolicy("p", [
        {
          name: "check",
          match: { any: [{ resources: { kinds: ["Namespace"] } }] },
          validate: { cel: { expressions: [{ expression: "namespaceObject == null" }] } },
        },
      ]),
    );
    assert.equal(run(cluster, { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } })[0]?.[1], "pass");
  });

  test("request has the AdmissionRequest's fields; another field is a compile error as Kubernetes types it", () => {
    const p = celPolicy({
      expressions: [
        {
          expression:
            "request.kind.kind == 'Pod' && request.requestKind.version == 'v1' && request.name == 'a' && request.namespace == 'default' && request.subResource == '' && request.dryRun == false && request.userInfo == {}",
        },
      ],
    });
    assert.equal(run(p, pod({ name: "a" }))[0]?.[1], "pass");
    // With no user (offline, no userinfo file) userInfo is empty, as Kubernetes' UserInfo marshals: Kyverno's CLI answers the same.
    const user = celPolicy({ expressions: [{ expression: "request.userInfo.username == ''" }] });
    assert.deepEqual(run(user, pod({ name: "a" })), [
      ["check", "fail", "expression 'request.userInfo.username == ''' resulted in error: no such key: username"],
    ]);
    const roles = celPolicy({ expressions: [{ expression: "size(request.roles) == 0" }] });
    assert.match(
      run(roles, pod({ name: "a" }))[0]?.[2] ?? "",
      /compilation failed: ERROR: <input>:1:13: undefined field 'roles'/,
    );
  });

  test("an evaluation error is a fail naming the expression, as Kubernetes' failurePolicy Fail answers", () => {
    const p = celPolicy({ expressions: [{ expression: "object.spec.nodeName == 'x'" }] });
    assert.deepEqual(run(p, pod({ name: "a" })), [
      ["check", "fail", "expression 'object.spec.nodeName == 'x'' resulted in error: no such key: nodeName"],
    ]);
  });

  test("an expression that does not compile is an error naming the policy, the rule, the field and the position", () => {
    const p = celPolicy({ expressions: [{ expression: "object.spec.containers.all(c, c.image.nope())" }] });
    const [r] = run(p, pod({ name: "a" }));
    assert.equal(r?.[1], "error");
    assert.equal(
      r?.[2],
      "policy cel-policy, rule check: validate.cel.expressions[0].expression: compilation failed: ERROR: <input>:1:31: undeclared reference to 'nope' (in container '')\n | object.spec.containers.all(c, c.image.nope())\n | ..............................^",
    );
    const notBool = celPolicy({ expressions: [{ expression: "object.metadata.name + 'x'" }] });
    assert.match(
      run(notBool, pod({ name: "a" }))[0]?.[2] ?? "",
      /expressions\[0\]\.expression: compilation failed: .*output is expected to be of type bool, got string/,
    );
    const badVar = celPolicy({ expressions: [{ expression: "variables.missing" }] });
    assert.match(run(badVar, pod({ name: "a" }))[0]?.[2] ?? "", /undefined field 'missing'/);
  });

  test("auditAnnotations are checked at load and change no result; a messageExpression must be a string", () => {
    const annotated = celPolicy({
      expressions: [{ expression: "true" }],
      auditAnnotations: [{ key: "k", valueExpression: "'v'" }],
    });
    assert.equal(run(annotated, pod({ name: "a" }))[0]?.[1], "pass");
    const badAnnotation = celPolicy({
      expressions: [{ expression: "true" }],
      auditAnnotations: [{ key: "k", valueExpression: "nope()" }],
    });
    assert.match(
      run(badAnnotation, pod({ name: "a" }))[0]?.[2] ?? "",
      /validate\.cel\.auditAnnotations\[0\]\.valueExpression: compilation failed: .*undeclared reference to 'nope'/,
    );
    const badMessage = celPolicy({ expressions: [{ expression: "false", messageExpression: "1" }] });
    assert.match(
      run(badMessage, pod({ name: "a" }))[0]?.[2] ?? "",
      /messageExpression: compilation failed: .*output is expected to be of type string, got int/,
    );
  });

  test("a hostile expression stops with the cost limit and fails the rule", () => {
    const ten = "[0,1,2,3,4,5,6,7,8,9]";
    const p = celPolicy({
      expressions: [
        {
          expression: `${ten}.all(a, ${ten}.all(b, ${ten}.all(c, ${ten}.all(d, ${ten}.all(e, ${ten}.all(f, true))))))`,
        },
      ],
    });
    assert.match(run(p, pod({ name: "a" }))[0]?.[2] ?? "", /operation cancelled: actual cost limit exceeded/);
  });

  test("a caller's Interruption stops a long CEL evaluation: the call throws, no result is made", () => {
    const containers = Array.from({ length: 100_000 }, (_, i) => ({ name: `c${i}`, image: `nginx:${i}` }));
    const p = celPolicy({
      expressions: [{ expression: "object.spec.containers.all(c, c.image.startsWith('nginx'))" }],
    });
    let checks = 0;
    const interruption = {
      ticks: 0,
      check() {
        checks++;
        if (checks >= 2) throw new EvaluationInterrupted("review deadline passed");
      },
    };
    assert.throws(
      () =>
        engine.validate(
          p,
          { resource: pod({ name: "big", containers }), operation: "CREATE", namespaceLabels: {} },
          interruption,
        ),
      (e) => isInterruption(e),
    );
    assert.equal(checks, 2);
  });

  // Kyverno: pkg/engine/handlers/validation/validate_cel.go, Process and collectParams.
  test("paramKind/paramRef: the rule runs once per parameter object, as Kyverno's collectParams finds them", () => {
    const limits = [
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "limits", namespace: "default" }, data: { max: "1" } },
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "limits", namespace: "team" }, data: { max: "3" } },
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "strict", namespace: "shared", labels: { tier: "t" } },
        data: { max: "1" },
      },
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "loose", namespace: "shared", labels: { tier: "t" } },
        data: { max: "5" },
      },
    ];
    const ports = fakePorts();
    const withParams = createEngine({ ...ports, context: { ...ports.context, paramObjects: () => ok(limits) } });
    const cel = {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      paramRef: { name: "limits" },
      expressions: [
        {
          expression: "size(object.spec.containers) <= int(params.data.max)",
          messageExpression: "'at most ' + params.data.max",
        },
      ],
    };
    const compile = (c: JsonObject): CompiledPolicy => {
      const r = withParams.compile(
        clusterPolicy("cel-policy", [{ name: "check", match: podMatch, validate: { cel: c } }]),
      );
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      return r.policy;
    };
    const two = [
      { name: "a", image: "a:1" },
      { name: "b", image: "b:1" },
    ];
    const runWith = (p: CompiledPolicy, resource: JsonObject): [string, string, string][] =>
      withParams
        .validate(p, { resource, operation: "CREATE", namespaceLabels: {} })
        .rules.map((r) => [r.rule, r.status, r.message]);
    const byName = compile(cel);
    assert.deepEqual(runWith(byName, pod({ name: "a", containers: two })), [["check", "fail", "at most 1"]]);
    assert.deepEqual(runWith(byName, pod({ name: "a", namespace: "team", containers: two })), [
      ["check", "pass", "Validation rule 'check' passed."],
    ]);
    // By name, not found: Kyverno's client Get fails before parameterNotFoundAction is read.
    const [missing] = runWith(byName, pod({ name: "a", namespace: "nowhere", containers: two }));
    assert.deepEqual(
      [missing?.[1], missing?.[2]],
      ["error", 'error in parameterized resource: ConfigMap (v1) "limits" not found in namespace nowhere'],
    );
    // A selector: each object in turn, the first failing one answers.
    const selector = { ...cel, paramRef: { namespace: "shared", selector: { matchLabels: { tier: "t" } } } };
    assert.deepEqual(runWith(compile(selector), pod({ name: "a", containers: two })), [["check", "fail", "at most 1"]]);
    // A selector finding none: no validation runs and Kyverno passes; with Deny it is an error.
    const none = { ...cel, paramRef: { selector: { matchLabels: { tier: "none" } } } };
    assert.deepEqual(runWith(compile(none), pod({ name: "a", containers: two })), [
      ["check", "pass", "Validation rule 'check' passed."],
    ]);
    const [denied] = runWith(
      compile({ ...cel, paramRef: { selector: { matchLabels: { tier: "none" } }, parameterNotFoundAction: "Deny" } }),
      pod({ name: "a" }),
    );
    assert.equal(denied?.[1], "error");
    assert.match(denied?.[2] ?? "", /^error in parameterized resource: no params found/);
    const [offline] = run(celPolicy(cel), pod({ name: "a" }));
    assert.deepEqual(
      [offline?.[1], /error in parameterized resource: .*no parameter objects were given/.test(offline?.[2] ?? "")],
      ["error", true],
    );
  });

  test("with several parameter objects, the first whose celPreconditions are not met answers skip (Kyverno's Process returns at once)", () => {
    const objects = [
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "off", namespace: "default", labels: { p: "x" } },
        data: { on: "false", max: "0" },
      },
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "on", namespace: "default", labels: { p: "x" } },
        data: { on: "true", max: "0" },
      },
    ];
    const ports = fakePorts();
    const e = createEngine({ ...ports, context: { ...ports.context, paramObjects: () => ok(objects) } });
    const r = e.compile(
      clusterPolicy("cel-policy", [
        {
          name: "check",
          match: podMatch,
          celPreconditions: [{ name: "on", expression: "params.data.on == 'true'" }],
          validate: {
            cel: {
              paramKind: { apiVersion: "v1", kind: "ConfigMap" },
              paramRef: { selector: { matchLabels: { p: "x" } } },
              expressions: [{ expression: "size(object.spec.containers) <= int(params.data.max)" }],
            },
          },
        },
      ]),
    );
    assert.ok(r.ok);
    if (!r.ok) return;
    const [row] = e.validate(r.policy, {
      resource: pod({ name: "a" }),
      operation: "CREATE",
      namespaceLabels: {},
    }).rules;
    assert.deepEqual([row?.status, row?.message], ["skip", "cel preconditions not met"]);
  });

  test("a PolicyException still skips the rule", () => {
    const p = celPolicy(noLatest);
    const ex = compileException({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "e", namespace: "default" },
      spec: {
        exceptions: [{ policyName: "cel-policy", ruleNames: ["check"] }],
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
      },
    });
    assert.ok(ex.ok);
    assert.equal(
      run(p, pod({ name: "b", containers: [{ name: "x", image: "nginx:latest" }] }), {
        exceptions: [ex.exception],
      })[0]?.[1],
      "skip",
    );
  });
});
