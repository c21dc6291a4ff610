/**
 * Conditions shared across the rules of one request (issue 39): policies evaluated one after another
 * against one prepared request answer exactly as each does on a request of its own, and a rule whose
 * scope reads anything of its own never takes another rule's outcome.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import type { Operation } from "../api/resource.js";
import { createEngine } from "../engine.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineRequest } from "../pipeline/types.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { fakePorts } from "../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());
const podMatch = { any: [{ resources: { kinds: ["Pod"] } }] };
const notDelete = { all: [{ key: "{{ request.operation || 'BACKGROUND' }}", operator: "NotEquals", value: "DELETE" }] };
const appIsWeb = { all: [{ key: "{{ request.object.metadata.labels.app || '' }}", operator: "Equals", value: "web" }] };

function policy(name: string, rule: JsonObject): CompiledPolicy {
  const r = engine.compile(clusterPolicy(name, [{ name: "r", match: podMatch, ...rule }]));
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.policy;
}

const requireTeam = { message: "team label", pattern: { metadata: { labels: { team: "?*" } } } };
const denyPrivileged = {
  message: "no privileged containers",
  deny: {
    conditions: {
      any: [
        {
          key: "{{ request.object.spec.containers[].securityContext.privileged || `[]` }}",
          operator: "AnyIn",
          value: [true],
        },
      ],
    },
  },
};

/** Copies of the same rules under other names, rules that differ in one part, and rules with scopes of their own. */
const policies: CompiledPolicy[] = [
  policy("team-a", { preconditions: notDelete, validate: requireTeam }),
  policy("team-b", { preconditions: notDelete, validate: requireTeam }),
  policy("team-web", { preconditions: appIsWeb, validate: requireTeam }),
  policy("team-web-copy", {
    preconditions: appIsWeb,
    validate: { ...requireTeam, message: "{{ request.object.metadata.name }} needs a team" },
  }),
  policy("privileged-a", { preconditions: notDelete, validate: denyPrivileged }),
  policy("privileged-b", { preconditions: notDelete, validate: denyPrivileged }),
  policy("own-context", {
    context: [{ name: "wanted", variable: { value: "db" } }],
    preconditions: {
      all: [{ key: "{{ request.object.metadata.labels.app || '' }}", operator: "Equals", value: "{{ wanted }}" }],
    },
    validate: requireTeam,
  }),
  policy("per-container", {
    preconditions: notDelete,
    validate: {
      foreach: [
        {
          list: "request.object.spec.containers",
          preconditions: { all: [{ key: "{{ element.name }}", operator: "Equals", value: "app" }] },
          deny: { conditions: { any: [{ key: "{{ element.image }}", operator: "Equals", value: "bad" }] } },
        },
      ],
    },
  }),
];

function pods(): JsonObject[] {
  const out: JsonObject[] = [];
  for (const app of ["web", "db"])
    for (const team of [undefined, "a"])
      for (const privileged of [false, true]) {
        const p = pod({ name: `p-${app}-${team ?? "none"}`, labels: { app, ...(team !== undefined ? { team } : {}) } });
        const spec = p["spec"] as { containers: JsonObject[] };
        spec.containers = [
          { name: "app", image: privileged ? "bad" : "good", securityContext: { privileged } },
          { name: "side", image: "bad" },
        ];
        out.push(p);
      }
  return out;
}

test("policies evaluated against one prepared request answer as each does alone", () => {
  const operations: Operation[] = ["CREATE", "UPDATE", "DELETE"];
  let failed = 0;
  for (const resource of pods())
    for (const operation of operations) {
      const request: EngineRequest =
        operation === "DELETE"
          ? { resource: {}, oldResource: resource, operation, namespaceLabels: {} }
          : { resource, oldResource: resource, operation, namespaceLabels: {} };
      const prepared = engine.prepare(request);
      for (const p of policies) {
        const together = engine.validate(p, prepared).rules;
        assert.deepEqual(
          together,
          engine.validate(p, { ...request }).rules,
          `${p.name} ${operation} ${JSON.stringify(resource)}`,
        );
        failed += together.filter((r) => r.status === "fail").length;
      }
    }
  // The set reaches failures of the shared pattern, the shared deny and the foreach.
  assert.ok(failed > 20, `${failed} failures`);
});

test("a rule with values of its own (the CLI's per-rule values) never takes the outcome another rule had on the request's context", () => {
  const web = pod({ name: "web", labels: { app: "web" } });
  const a = policy("a", { preconditions: appIsWeb, validate: requireTeam });
  const b = policy("b", { preconditions: appIsWeb, validate: requireTeam });
  const prepared = engine.prepare({
    resource: web,
    operation: "CREATE",
    namespaceLabels: {},
    ruleVariables: (name) => (name === "b" ? { "request.object.metadata.labels.app": "db" } : undefined),
  });
  assert.equal(engine.validate(a, prepared).rules[0]?.status, "fail");
  assert.deepEqual(engine.validate(b, prepared).rules[0], {
    rule: "r",
    type: "Validation",
    status: "skip",
    message: "preconditions not met",
  });
});
