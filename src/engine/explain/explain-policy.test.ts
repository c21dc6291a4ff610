/** engine.explain: what a user reads to learn why a rule gave its result, pinned per rule type. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { ok } from "../api/result.js";
import { createEngine } from "../engine.js";
import type { EngineRequest } from "../pipeline/types.js";
import { fakePorts, type FakeContext } from "../../../test/support/fake-ports.js";
import { clusterPolicy, pod, podRule } from "../../../test/support/builders.js";
import type { PolicyExplanation, RuleExplanation } from "./types.js";
import { explanationText } from "./explanation-text.js";

interface Explained {
  readonly explanation: PolicyExplanation;
  /** The rule of that name (the CEL kinds' body: ""). */
  readonly rule: (name: string) => RuleExplanation;
}

function explain(
  doc: JsonObject,
  resource: JsonObject,
  extra: Partial<EngineRequest> & {
    readonly context?: FakeContext;
    readonly phase?: "mutate" | "generate";
    readonly bindings?: readonly JsonObject[];
  } = {},
): Explained {
  const engine = createEngine(fakePorts(extra.context));
  const compiled = engine.compile(doc, { bindings: extra.bindings ?? [] });
  if (!compiled.ok) throw new Error(compiled.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
  const request: EngineRequest = { resource, operation: "CREATE", namespaceLabels: {}, ...extra };
  const response =
    extra.phase === "mutate"
      ? engine.mutate(compiled.policy, request)
      : extra.phase === "generate"
        ? engine.generate(compiled.policy, request, { get: () => ok(undefined), list: () => ok([]) })
        : engine.validate(compiled.policy, request);
  const explanation = engine.explain(compiled.policy, request, response.rules);
  return {
    explanation,
    rule: (name) => {
      const found = explanation.rules.find((r) => r.rule === name);
      if (found === undefined) throw new Error(`no rule ${name} in ${JSON.stringify(explanation)}`);
      return found;
    },
  };
}

describe("engine.explain: match and exclude", () => {
  const policy = clusterPolicy("ns-rules", [
    {
      name: "r",
      match: {
        any: [
          { resources: { kinds: ["Pod"], namespaces: ["prod-*"] } },
          { resources: { kinds: ["Pod"], selector: { matchLabels: { tier: "web" } } } },
        ],
      },
      exclude: { any: [{ resources: { names: ["debug-*"] } }] },
      validate: { message: "m", pattern: { metadata: { labels: { team: "?*" } } } },
    },
  ]);

  test("the filter that selected the resource is named, with the exclude that did not apply", () => {
    const { rule } = explain(policy, pod({ namespace: "shop", labels: { tier: "web", team: "a" } }));
    assert.deepEqual(rule("r").match, {
      matched: true,
      reason: "match.any[1] selected it; no exclude filter excluded it",
    });
    assert.equal(rule("r").results[0]?.status, "pass");
  });

  test("a resource no filter selects names each filter's unmet criteria", () => {
    const { rule, explanation } = explain(policy, pod({ namespace: "shop" }));
    assert.deepEqual(rule("r").match, {
      matched: false,
      reason: "no filter selected it: match.any[0] (namespaces not met); match.any[1] (selector not met)",
    });
    assert.deepEqual(rule("r").results, []);
    assert.equal(explanation.resource, "Pod shop/web");
    assert.equal(explanation.operation, "CREATE");
  });

  test("an exclude that applies is named after the match that selected", () => {
    const { rule } = explain(policy, pod({ name: "debug-1", namespace: "prod-eu" }));
    assert.deepEqual(rule("r").match, {
      matched: false,
      reason: "match.any[0] selected it, but exclude.any[0] excluded it",
    });
  });

  test("a kind the rule does not name is the reason for its autogen copies too", () => {
    const team = clusterPolicy("team", [
      podRule("r", { message: "m", pattern: { metadata: { labels: { team: "?*" } } } }),
    ]);
    const { rule } = explain(team, pod({ namespace: "prod-eu", labels: { team: "a" } }));
    assert.match(rule("autogen-r").match.reason, /^match: kind Pod is not among DaemonSet, Deployment/);
    assert.equal(rule("autogen-r").match.elsewhere, true);
    assert.equal(rule("r").match.elsewhere, undefined);
  });

  test("the explanation agrees with the matcher for every request tried", () => {
    const engine = createEngine(fakePorts());
    const compiled = engine.compile(policy);
    assert.ok(compiled.ok);
    for (const namespace of ["prod-eu", "shop", null])
      for (const name of ["web", "debug-1"])
        for (const labels of [{}, { tier: "web" }]) {
          const resource = pod({ name, namespace, labels });
          const request: EngineRequest = { resource, operation: "CREATE", namespaceLabels: {} };
          const response = engine.validate(compiled.policy, request);
          const explained = engine.explain(compiled.policy, request, response.rules);
          const matched = explained.rules.filter((r) => r.match.matched).map((r) => r.rule);
          assert.deepEqual(
            matched,
            response.rules.map((r) => r.rule),
            `${String(namespace)}/${name} ${JSON.stringify(labels)}`,
          );
        }
  });
});

describe("engine.explain: validate", () => {
  test("pattern: the path it failed at, the value found there and what the pattern wants", () => {
    const policy = clusterPolicy("no-privileged", [
      podRule("privileged", {
        message: "no privileged containers",
        pattern: { spec: { containers: [{ "=(securityContext)": { "=(privileged)": "false" } }] } },
      }),
    ]);
    const { rule } = explain(
      policy,
      pod({ containers: [{ name: "app", image: "nginx", securityContext: { privileged: true } }] }),
    );
    assert.equal(rule("privileged").results[0]?.status, "fail");
    assert.deepEqual(rule("privileged").failedAt, {
      path: "/spec/containers/0/securityContext/privileged/",
      value: "true",
      expected: '"false"',
    });
  });

  test("pattern: a field that is missing is shown as absent", () => {
    const policy = clusterPolicy("team", [
      podRule("team", { message: "m", pattern: { metadata: { labels: { team: "?*" } } } }),
    ]);
    const { rule } = explain(policy, pod({ labels: { app: "x" } }));
    assert.deepEqual(rule("team").failedAt, { path: "/metadata/labels/team/", value: "(absent)", expected: '"?*"' });
  });

  test("anyPattern: each pattern tried, with where it failed", () => {
    const policy = clusterPolicy("any", [
      podRule("either", {
        message: "m",
        anyPattern: [{ metadata: { labels: { team: "?*" } } }, { metadata: { labels: { owner: "?*" } } }],
      }),
    ]);
    const { rule } = explain(policy, pod());
    assert.equal(rule("either").results[0]?.status, "fail");
    assert.deepEqual(rule("either").anyPattern, [
      {
        at: "anyPattern[0]",
        status: "fail",
        message:
          "pattern and resource have different structures. Path: /metadata/labels/. Expected map[string]interface {}, found <nil>",
        failedAt: { path: "/metadata/labels/", value: "(absent)", expected: '{"team":"?*"}' },
      },
      {
        at: "anyPattern[1]",
        status: "fail",
        message:
          "pattern and resource have different structures. Path: /metadata/labels/. Expected map[string]interface {}, found <nil>",
        failedAt: { path: "/metadata/labels/", value: "(absent)", expected: '{"owner":"?*"}' },
      },
    ]);
    assert.deepEqual(rule("either").match, { matched: true, reason: "match.any[0] selected it; no exclude" });
  });

  test("deny: each condition with its operands after substitution", () => {
    const policy = clusterPolicy("no-latest", [
      podRule("latest", {
        message: "no latest",
        deny: {
          conditions: {
            any: [
              { key: "{{ request.object.spec.containers[0].image }}", operator: "Equals", value: "nginx:latest" },
              { key: "{{ request.object.metadata.name }}", operator: "Equals", value: "web" },
            ],
          },
        },
      }),
    ]);
    const { rule } = explain(policy, pod({ image: "nginx:1.27" }));
    assert.deepEqual(rule("latest").deny, {
      met: true,
      conditions: [
        { at: "any[0]", key: '"nginx:1.27"', operator: "Equals", value: '"nginx:latest"', holds: false },
        { at: "any[1]", key: '"web"', operator: "Equals", value: '"web"', holds: true },
      ],
    });
    assert.equal(rule("latest").results[0]?.status, "fail");
  });

  test("foreach with deny: the list walked, the elements reached and passed, and the element that decided with its conditions", () => {
    const policy = clusterPolicy("images", [
      podRule("registry", {
        foreach: [
          {
            list: "request.object.spec.containers",
            deny: { conditions: { all: [{ key: "{{ element.image }}", operator: "Equals", value: "bad:1" }] } },
          },
        ],
      }),
    ]);
    const explained = explain(
      policy,
      pod({
        containers: [
          { name: "a", image: "good:1" },
          { name: "b", image: "bad:1" },
        ],
      }),
    );
    const { rule } = explained;
    assert.equal(rule("registry").results[0]?.status, "fail");
    assert.deepEqual(rule("registry").match, { matched: true, reason: "match.any[0] selected it; no exclude" });
    assert.deepEqual(rule("registry").foreach, [
      {
        at: "foreach[0]",
        list: "request.object.spec.containers",
        elements: 2,
        passed: 1,
        decided: {
          index: 1,
          element: '{"name":"b","image":"bad:1"}',
          status: "fail",
          message: rule("registry").foreach?.[0]?.decided?.message ?? "",
          deny: {
            met: true,
            conditions: [{ at: "all[0]", key: '"bad:1"', operator: "Equals", value: '"bad:1"', holds: true }],
          },
        },
      },
    ]);
    assert.match(
      explanationText([explained.explanation]),
      /foreach\[0\] over request\.object\.spec\.containers: 2 elements reached, 1 passed\n +element 1 \{"name":"b","image":"bad:1"\}: fail/,
    );
  });

  test("foreach with a pattern: where the element that decided failed, and the value there", () => {
    const policy = clusterPolicy("tags", [
      podRule("no-latest", {
        message: "no latest",
        foreach: [{ list: "request.object.spec.containers", pattern: { image: "!*:latest" } }],
      }),
    ]);
    const { rule } = explain(
      policy,
      pod({
        containers: [
          { name: "a", image: "nginx:1" },
          { name: "b", image: "nginx:1" },
          { name: "c", image: "nginx:latest" },
        ],
      }),
    );
    const [entry] = rule("no-latest").foreach ?? [];
    assert.equal(entry?.elements, 3);
    assert.equal(entry?.passed, 2);
    assert.equal(entry?.decided?.index, 2);
    assert.deepEqual(entry?.decided?.failedAt, { path: "/image/", value: '"nginx:latest"', expected: '"!*:latest"' });
    assert.equal(rule("no-latest").failedAt, undefined, "the path is the element's, not the resource's");
  });

  test("context entries with their values, then preconditions with each operand", () => {
    const policy = clusterPolicy("ctx", [
      podRule(
        "teams",
        {
          message: "m",
          deny: { conditions: { all: [{ key: "{{ allowed.data }}", operator: "AnyNotIn", value: ["a"] }] } },
        },
        {
          context: [{ name: "allowed", configMap: { name: "teams", namespace: "default" } }],
          preconditions: { all: [{ key: "{{ request.operation }}", operator: "In", value: ["CREATE", "UPDATE"] }] },
        },
      ),
    ]);
    const { rule } = explain(policy, pod(), { context: { configMaps: { "default/teams": { data: { a: "1" } } } } });
    assert.deepEqual(rule("teams").context, { entries: [{ name: "allowed", value: '{"data":{"a":"1"}}' }] });
    assert.deepEqual(rule("teams").preconditions, {
      met: true,
      conditions: [{ at: "all[0]", key: '"CREATE"', operator: "In", value: '["CREATE","UPDATE"]', holds: true }],
    });
  });

  test("an entry that failed to load is shown as not loaded, with why; the rule that read it is an error", () => {
    const policy = clusterPolicy("ctx", [
      podRule(
        "teams",
        {
          message: "m",
          deny: { conditions: { all: [{ key: "{{ allowed.data }}", operator: "AnyNotIn", value: ["a"] }] } },
        },
        {
          context: [
            { name: "allowed", configMap: { name: "missing", namespace: "default" } },
            { name: "size", variable: { value: 3 } },
          ],
        },
      ),
    ]);
    const { rule } = explain(policy, pod(), { context: { configMaps: {} } });
    assert.deepEqual(rule("teams").context, {
      entries: [
        {
          name: "allowed",
          value:
            "(not loaded: failed to retrieve config map for context entry allowed: configmap default/missing not found)",
        },
        { name: "size", value: "3" },
      ],
    });
    assert.equal(rule("teams").results[0]?.status, "error");
  });

  test("preconditions not met: the condition that was false, and the rule's skip", () => {
    const policy = clusterPolicy("pre", [
      podRule(
        "only-update",
        { message: "m", pattern: { metadata: { name: "x" } } },
        { preconditions: { all: [{ key: "{{ request.operation }}", operator: "Equals", value: "UPDATE" }] } },
      ),
    ]);
    const { rule } = explain(policy, pod());
    assert.equal(rule("only-update").results[0]?.status, "skip");
    assert.deepEqual(rule("only-update").preconditions, {
      met: false,
      conditions: [{ at: "all[0]", key: '"CREATE"', operator: "Equals", value: '"UPDATE"', holds: false }],
    });
  });

  test("a context value too long is cut, keeping its size", () => {
    const long = "x".repeat(500);
    const policy = clusterPolicy("big", [
      podRule(
        "r",
        { message: "m", pattern: { metadata: { name: "?*" } } },
        { context: [{ name: "v", variable: { value: long } }] },
      ),
    ]);
    const { rule } = explain(policy, pod());
    const value = rule("r").context?.entries[0]?.value ?? "";
    assert.ok(value.length < 200, value);
    assert.match(value, /… \(502 characters\)$/);
  });
});

describe("engine.explain: exceptions", () => {
  test("each exception naming the rule, and whether it applied", async () => {
    const { compileException } = await import("../exceptions/index.js");
    const exception = (name: string, names: string[]) => {
      const r = compileException({
        apiVersion: "kyverno.io/v2",
        kind: "PolicyException",
        metadata: { name, namespace: "default" },
        spec: {
          exceptions: [{ policyName: "team", ruleNames: ["team"] }],
          match: { any: [{ resources: { kinds: ["Pod"], names } }] },
        },
      });
      if (!r.ok) throw new Error("exception did not compile");
      return r.exception;
    };
    const policy = clusterPolicy("team", [
      podRule("team", { message: "m", pattern: { metadata: { labels: { team: "?*" } } } }),
    ]);
    const { rule } = explain(policy, pod({ name: "web" }), {
      exceptions: [exception("for-web", ["web"]), exception("for-db", ["db"])],
    });
    assert.equal(rule("team").results[0]?.status, "skip");
    assert.deepEqual(rule("team").exceptions, [
      { name: "default/for-web", applied: true },
      { name: "default/for-db", applied: false },
    ]);
  });

  test("a CEL policy: each policies.kyverno.io PolicyException naming it, and whether it exempted the resource", () => {
    const engine = createEngine(fakePorts());
    const exception = (name: string, podName: string) => {
      const r = engine.compileException({
        apiVersion: "policies.kyverno.io/v1",
        kind: "PolicyException",
        metadata: { name, namespace: "default" },
        spec: {
          policyRefs: [{ name: "cel-team", kind: "ValidatingPolicy" }],
          matchConditions: [{ name: "this-pod", expression: `object.metadata.name == '${podName}'` }],
        },
      });
      if (!r.ok) throw new Error("exception did not compile");
      return r.exception;
    };
    const policy: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "cel-team" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        },
        validations: [{ expression: "has(object.metadata.labels)", message: "labels" }],
      },
    };
    const { rule } = explain(policy, pod({ name: "web" }), {
      exceptions: [exception("for-web", "web"), exception("for-db", "db")],
    });
    const body = rule("");
    assert.deepEqual(body.exceptions, [
      { name: "default/for-web", applied: true },
      { name: "default/for-db", applied: false },
    ]);
    assert.equal(body.results[0]?.status, "skip");
    assert.match(body.results[0]?.message ?? "", /policy exception: default\/for-web/);
    assert.equal(body.cel, undefined, "no expression ran: none is shown");
    const other = explain(policy, pod({ name: "api" }), { exceptions: [exception("for-web", "web")] }).rule("");
    assert.deepEqual(other.exceptions, [{ name: "default/for-web", applied: false }]);
    assert.equal(other.cel?.[0]?.at, "validations[0]");
  });
});

describe("engine.explain: mutate", () => {
  test("a mutate rule's match, preconditions and result", () => {
    const policy = clusterPolicy("add-team", [
      {
        name: "add",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        preconditions: {
          all: [{ key: "{{ request.object.metadata.labels.team || '' }}", operator: "Equals", value: "" }],
        },
        mutate: { patchStrategicMerge: { metadata: { labels: { team: "platform" } } } },
      },
    ]);
    const { rule } = explain(policy, pod(), { phase: "mutate" });
    assert.equal(rule("add").results[0]?.status, "pass");
    assert.equal(rule("add").results[0]?.type, "Mutation");
    assert.deepEqual(rule("add").preconditions, {
      met: true,
      conditions: [{ at: "all[0]", key: '""', operator: "Equals", value: '""', holds: true }],
    });
  });
});

describe("engine.explain: CEL", () => {
  test("a ValidatingPolicy: matchConstraints, then each expression reached and what it gave", () => {
    const policy: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "cel-team" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        },
        matchConditions: [{ name: "not-system", expression: "object.metadata.namespace != 'kube-system'" }],
        validations: [
          { expression: "has(object.metadata.labels)", message: "labels" },
          { expression: "'team' in object.metadata.labels", message: "team label" },
          { expression: "object.metadata.name != ''", message: "name" },
        ],
      },
    };
    const { rule } = explain(policy, pod({ labels: { app: "x" } }));
    const body = rule("");
    assert.deepEqual(body.match, { matched: true, reason: "spec.matchConstraints selected it" });
    assert.equal(body.results[0]?.status, "fail");
    assert.deepEqual(body.cel, [
      { at: "matchConditions[not-system]", expression: "object.metadata.namespace != 'kube-system'", value: "true" },
      { at: "validations[0]", expression: "has(object.metadata.labels)", value: "true" },
      { at: "validations[1]", expression: "'team' in object.metadata.labels", value: "false" },
    ]);
  });

  test("validate.cel in a ClusterPolicy: the context the expressions read, each celPrecondition and expression reached", () => {
    const policy = clusterPolicy("cel-rule", [
      podRule(
        "team",
        {
          cel: {
            variables: [{ name: "labels", expression: "object.metadata.?labels.orValue({})" }],
            expressions: [
              { expression: "object.metadata.name != ''", message: "name" },
              { expression: "'team' in variables.labels", message: "a team label is needed" },
              { expression: "true" },
            ],
          },
        },
        { celPreconditions: [{ name: "not-system", expression: "object.metadata.namespace != 'kube-system'" }] },
      ),
    ]);
    const failing = explain(policy, pod({ labels: { app: "x" } })).rule("team");
    assert.equal(failing.results[0]?.status, "fail");
    assert.deepEqual(failing.cel, [
      { at: "variables[labels]", expression: "object.metadata.?labels.orValue({})", value: '{"app":"x"}' },
      { at: "celPreconditions[0]", expression: "object.metadata.namespace != 'kube-system'", value: "true" },
      { at: "validate.cel.expressions[0]", expression: "object.metadata.name != ''", value: "true" },
      { at: "validate.cel.expressions[1]", expression: "'team' in variables.labels", value: "false" },
    ]);
    const skipped = explain(policy, pod({ namespace: "kube-system" })).rule("team");
    assert.equal(skipped.results[0]?.status, "skip");
    assert.deepEqual(skipped.cel, [
      { at: "variables[labels]", expression: "object.metadata.?labels.orValue({})", value: "{}" },
      { at: "celPreconditions[0]", expression: "object.metadata.namespace != 'kube-system'", value: "false" },
    ]);
    const erring = explain(
      clusterPolicy("cel-err", [podRule("r", { cel: { expressions: [{ expression: "object.spec.nothere == 1" }] } })]),
      pod(),
    ).rule("r");
    assert.equal(erring.cel?.[0]?.at, "validate.cel.expressions[0]");
    assert.match(erring.cel?.[0]?.error ?? "", /nothere/);
  });

  test("a ValidatingPolicy whose constraints leave the resource out says so", () => {
    const policy: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "cel-deploy" },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] },
          ],
        },
        validations: [{ expression: "true" }],
      },
    };
    const { explanation } = explain(policy, pod());
    assert.ok(explanation.rules.length > 0);
    for (const r of explanation.rules) {
      assert.deepEqual(r.match, { matched: false, reason: "spec.matchConstraints did not select it", elsewhere: true });
      assert.deepEqual(r.results, []);
    }
  });
});

/** Where each traced expression is written, and what it gave. */
function ranWith(body: RuleExplanation): [string, string | undefined][] {
  return (body.cel ?? []).map((s) => [s.at, s.value]);
}

describe("engine.explain: every CEL kind is traced by its own evaluation", () => {
  const pods = {
    resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
  };
  const cel = (kind: string, spec: JsonObject): JsonObject => ({
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "p" },
    spec: { matchConstraints: pods, ...spec },
  });

  test("a MutatingPolicy: its matchConditions, variables and mutations with what each built, and its patch", () => {
    const policy = cel("MutatingPolicy", {
      matchConditions: [
        { name: "unlabelled", expression: "!has(object.metadata.labels) ||\n  !('team' in object.metadata.labels)" },
      ],
      variables: [{ name: "team", expression: "'platform'" }],
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'team': variables.team}}}" },
        },
        {
          patchType: "JSONPatch",
          jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/annotations', value: {'by': 'p'}}]" },
        },
      ],
    });
    const { rule, explanation } = explain(policy, pod({ labels: { app: "x" } }), { phase: "mutate" });
    const body = rule("");
    assert.equal(body.results[0]?.status, "pass");
    assert.deepEqual(
      body.cel?.map((s) => [s.at, s.value ?? s.error]),
      [
        ["matchConditions[unlabelled]", "true"],
        ["variables[team]", '"platform"'],
        ["mutations[0]", '{"metadata":{"labels":{"team":"platform"}}}'],
        ["mutations[1]", '[{"op":"add","path":"/metadata/annotations","value":{"by":"p"}}]'],
      ],
    );
    assert.deepEqual(body.patch, [
      { op: "add", path: "/metadata/annotations", value: { by: "p" } },
      { op: "add", path: "/metadata/labels/team", value: "platform" },
    ]);
    const text = explanationText([explanation]);
    assert.match(text, /mutations\[0\] Object\{metadata/);
    assert.match(text, /matchConditions\[unlabelled\] !has\(object\.metadata\.labels\) \|\| !\('team'/, "one line");
    assert.match(
      text,
      /\n {2}2 policy bodies \(its own and autogen copies\): not matched: spec\.matchConstraints did not/,
    );
    assert.match(text, /patch add \/metadata\/labels\/team "platform"/);
    const skipped = explain(policy, pod({ labels: { team: "a" } }), { phase: "mutate" }).rule("");
    assert.equal(skipped.results[0]?.status, "skip");
    assert.deepEqual(
      skipped.cel?.map((s) => s.at),
      ["matchConditions[unlabelled]"],
      "no mutation ran",
    );
    assert.equal(skipped.patch, undefined);
  });

  test("a MutatingPolicy's failing mutation names the expression and its error", () => {
    const policy = cel("MutatingPolicy", {
      mutations: [
        { patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: object.spec.nope}" } },
      ],
    });
    const body = explain(policy, pod(), { phase: "mutate" }).rule("");
    assert.equal(body.results[0]?.status, "error");
    assert.equal(body.cel?.[0]?.at, "mutations[0]");
    assert.match(body.cel?.[0]?.error ?? "", /nope/);
  });

  test("a MutatingAdmissionPolicy: its matchConstraints or bindings, each expression it ran, and its patch", () => {
    const policy: JsonObject = {
      apiVersion: "admissionregistration.k8s.io/v1beta1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "map" },
      spec: {
        matchConstraints: pods,
        matchConditions: [{ name: "unlabelled", expression: "!has(object.metadata.labels)" }],
        variables: [{ name: "team", expression: "'platform'" }],
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'team': variables.team}}}" },
          },
        ],
      },
    };
    const { rule, explanation } = explain(policy, pod(), { phase: "mutate" });
    const body = rule("");
    assert.deepEqual(body.match, { matched: true, reason: "spec.matchConstraints selected it" });
    assert.deepEqual(
      body.results.map((r) => [r.rule, r.status]),
      [["map", "pass"]],
    );
    assert.deepEqual(ranWith(body), [
      ["matchConditions[unlabelled]", "true"],
      ["variables[team]", '"platform"'],
      ["mutations[0]", '{"metadata":{"labels":{"team":"platform"}}}'],
    ]);
    assert.deepEqual(body.patch, [{ op: "add", path: "/metadata/labels", value: { team: "platform" } }]);
    assert.match(explanationText([explanation]), /patch add \/metadata\/labels \{"team":"platform"\}/);
    const skipped = explain(policy, pod({ labels: { a: "b" } }), { phase: "mutate" }).rule("");
    assert.equal(skipped.results[0]?.status, "skip");
    assert.deepEqual(ranWith(skipped), [["matchConditions[unlabelled]", "false"]]);
    assert.equal(skipped.patch, undefined);
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
    const unmatched = explain(policy, configMap, { phase: "mutate" }).rule("");
    assert.deepEqual([unmatched.match.matched, unmatched.results, unmatched.cel], [false, [], undefined]);
    // Bound: the bindings' matchResources decide, the policy's own matchConstraints are not consulted.
    const bound = (name: string, objectSelector?: JsonObject): JsonObject => ({
      apiVersion: "admissionregistration.k8s.io/v1beta1",
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name },
      spec: {
        policyName: "map",
        ...(objectSelector !== undefined
          ? { matchResources: { resourceRules: pods.resourceRules, objectSelector } }
          : {}),
      },
    });
    const tiered = bound("tiered", { matchExpressions: [{ key: "tier", operator: "Exists" }] });
    const bindings = [tiered, bound("everywhere")];
    const viaBinding = explain(policy, pod(), { phase: "mutate", bindings }).rule("");
    assert.match(viaBinding.match.reason, /^binding everywhere selected it \(matchResources\); the policy's own/);
    assert.equal(viaBinding.results[0]?.properties?.["binding"], "everywhere");
    assert.equal(viaBinding.cel?.length, 3);
    const none = explain(policy, pod(), { phase: "mutate", bindings: [tiered] }).rule("");
    assert.match(none.match.reason, /^no binding's matchResources selected it \(tiered\)/);
    assert.deepEqual(none.results, []);
  });

  test("a GeneratingPolicy: its matchConditions and generate expressions", () => {
    const policy = cel("GeneratingPolicy", {
      matchConditions: [{ name: "labelled", expression: "has(object.metadata.labels)" }],
      generate: [
        {
          expression:
            'generator.Apply(object.metadata.namespace, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"), "metadata": dyn({"name": "c"})}])',
        },
      ],
    });
    const body = explain(policy, pod({ labels: { a: "b" } }), { phase: "generate" }).rule("");
    assert.equal(body.results[0]?.type, "Generation");
    assert.deepEqual(
      body.cel?.map((s) => s.at),
      ["matchConditions[labelled]", "generate[0]"],
    );
    assert.equal(body.cel?.[1]?.error, undefined);
  });

  test("a DeletingPolicy: each condition until one is false", () => {
    const policy = cel("DeletingPolicy", {
      schedule: "*/5 * * * *",
      conditions: [
        { name: "temporary", expression: "'temporary' in object.metadata.labels" },
        { name: "old", expression: "object.metadata.name.startsWith('old-')" },
      ],
    });
    const body = explain(policy, pod({ labels: { temporary: "yes" } })).rule("");
    assert.equal(body.results[0]?.status, "fail");
    assert.deepEqual(ranWith(body), [
      ["conditions[temporary]", "true"],
      ["conditions[old]", "false"],
    ]);
  });

  test("an ImageValidatingPolicy: its matchConditions, image references and validations", () => {
    const policy = cel("ImageValidatingPolicy", {
      attestors: [],
      validationConfigurations: { verifyDigest: false, mutateDigest: false, required: false },
      matchConditions: [{ name: "not-system", expression: "object.metadata.namespace != 'kube-system'" }],
      matchImageReferences: [{ glob: "ghcr.io/*" }],
      validations: [{ expression: "images.containers.all(i, i.contains('@'))", message: "pin images" }],
    });
    const body = explain(policy, pod({ image: "ghcr.io/app:1" })).rule("");
    assert.equal(body.results[0]?.status, "fail");
    assert.deepEqual(ranWith(body), [
      ["matchConditions[not-system]", "true"],
      ["validations[0]", "false"],
    ]);
  });
});

describe("engine.explain: a mutate rule's own patch", () => {
  test("each rule's patch is what it changed on the resource the rules before it made", () => {
    const policy = clusterPolicy("labels", [
      {
        name: "team",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { team: "platform" } } } },
      },
      {
        name: "tier",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: {
          patchStrategicMerge: { metadata: { labels: { tier: "{{ request.object.metadata.labels.team }}" } } },
        },
      },
      {
        name: "again",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { team: "platform" } } } },
      },
    ]);
    const { rule, explanation } = explain(policy, pod({ labels: { app: "x" } }), { phase: "mutate" });
    assert.deepEqual(rule("team").patch, [{ op: "add", path: "/metadata/labels/team", value: "platform" }]);
    assert.deepEqual(rule("tier").patch, [{ op: "add", path: "/metadata/labels/tier", value: "platform" }]);
    assert.equal(rule("again").patch, undefined, "a rule that changed nothing shows no patch");
    assert.match(explanationText([explanation]), /rule tier: pass[\s\S]*patch add \/metadata\/labels\/tier "platform"/);
  });

  test("applyRules One: the rules after the first that patched made no patch", () => {
    const rule = (name: string, label: string): JsonObject => ({
      name,
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      mutate: { patchStrategicMerge: { metadata: { labels: { [label]: "x" } } } },
    });
    const doc = clusterPolicy("one", [rule("first", "a"), rule("second", "b")]);
    const policy = { ...doc, spec: { ...(doc["spec"] as JsonObject), applyRules: "One" } };
    const { rule: explained } = explain(policy, pod({ labels: { app: "x" } }), { phase: "mutate" });
    assert.deepEqual(explained("first").patch, [{ op: "add", path: "/metadata/labels/a", value: "x" }]);
    assert.equal(explained("second").patch, undefined, "the evaluation never reached it");
    assert.deepEqual(explained("second").results, []);
  });
});
