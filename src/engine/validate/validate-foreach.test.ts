/**
 * validate.foreach, compared with the general path it replaced: each element in a scope of its own
 * made by `withElement`, `enterScope` with its preconditions as written, then `runValidation`.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject, JsonValue } from "../api/json.js";
import type { ForEachValidation } from "../api/policy.js";
import { enterScope } from "../context/enter-scope.js";
import { evaluateList, withElement } from "../foreach/evaluate-list.js";
import { createJmesPath } from "../jmespath/index.js";
import { PatternCache } from "../pattern/index.js";
import type { EnginePorts } from "../ports.js";
import { ExpressionCache, type SubstitutionScope } from "../variables/index.js";
import { FOREACH_PASS } from "./messages.js";
import { runValidation } from "./run-validation.js";
import type { ValidateOutcome, ValidateScope } from "./types.js";
import { validateForEach } from "./validate-foreach.js";

/** The loop as it was written before the element scopes and compiled conditions were made once per list. */
function generalForEach(
  list: readonly ForEachValidation[],
  message: string | undefined,
  scope: ValidateScope,
  depth: number,
): ValidateOutcome | undefined {
  let applied = 0;
  for (const fe of list) {
    const elements = evaluateList(fe.list, scope.vars);
    if (elements.kind === "error")
      return { status: "error", message: `failed to evaluate list ${fe.list}: ${elements.message}` };
    if (elements.kind === "missing") continue;
    for (let index = 0; index < elements.items.length; index++) {
      const element = elements.items[index];
      if (element === null || element === undefined) continue;
      const entered = enterScope(withElement(scope.vars, element, index, depth), fe.context, fe.preconditions);
      if (entered.kind === "error" && entered.stage === "context") return { status: "error", message: entered.message };
      if (entered.kind !== "ready") continue;
      const target = fe.elementScope === false ? scope.target : element;
      const outcome = runValidation(fe, message, { ...scope, target, vars: entered.vars }, depth + 1);
      if (outcome === undefined || outcome.status === "skip") continue;
      if (outcome.status !== "pass") return { ...outcome, message: `validation failure: ${outcome.message}` };
      applied++;
    }
  }
  return applied === 0 ? undefined : FOREACH_PASS;
}

const pod = (caps: JsonValue[]): JsonObject => ({
  metadata: { name: "web", labels: { team: "a" } },
  spec: {
    containers: caps.map((c, i) => ({
      name: `c${i}`,
      image: i === 1 ? "busybox" : "nginx:1",
      securityContext: { capabilities: c },
    })),
  },
});

function scopeFor(operation: string, object: JsonObject, oldObject: JsonObject): ValidateScope {
  const jmespath = createJmesPath({ functions: [] });
  const data: JsonObject = { request: { operation, object, oldObject } };
  const vars: SubstitutionScope = {
    data,
    jmespath,
    fnctx: { ports: {} as EnginePorts },
    cache: new ExpressionCache(jmespath),
  };
  return { ruleName: "r", target: object, vars, patterns: new PatternCache() };
}

const containers = "request.object.spec.containers";
const bodies: Record<string, ForEachValidation[]> = {
  "deny with a variable value": [
    {
      list: containers,
      deny: {
        conditions: {
          all: [
            { key: "ALL", operator: "AnyNotIn", value: "{{ element.securityContext.capabilities.drop[] || `[]` }}" },
          ],
        },
      },
    },
  ],
  "deny with a variable key and a fixed list": [
    {
      list: containers,
      deny: {
        conditions: {
          all: [
            {
              key: "{{ element.securityContext.capabilities.add[] || `[]` }}",
              operator: "AnyNotIn",
              value: ["NET_BIND_SERVICE", ""],
            },
          ],
        },
      },
    },
  ],
  "deny with messages naming the element": [
    {
      list: containers,
      deny: {
        conditions: {
          any: [
            {
              key: "{{ element.name }}",
              operator: "Equals",
              value: "c1",
              message: "{{ element.name }} at {{ elementIndex }}",
            },
          ],
        },
      },
    },
  ],
  "element preconditions skip some elements": [
    {
      list: containers,
      preconditions: { all: [{ key: "{{ elementIndex }}", operator: "GreaterThan", value: 0 }] },
      deny: { conditions: [{ key: "{{ element.image }}", operator: "Equals", value: "busybox" }] },
    },
  ],
  "preconditions that fail to evaluate skip the element": [
    {
      list: containers,
      preconditions: { all: [{ key: "{{ element.nope.deeper }}", operator: "Equals", value: 1 }] },
      deny: { conditions: [{ key: 1, operator: "Equals", value: 1 }] },
    },
  ],
  "context entries per element": [
    {
      list: containers,
      context: [{ name: "img", variable: { jmesPath: "element.image" } }],
      deny: { conditions: [{ key: "{{ img }}", operator: "Equals", value: "busybox" }] },
    },
  ],
  "a context entry that fails ends the rule": [
    {
      list: containers,
      context: [{ name: "x", variable: { jmesPath: "element.nope.deeper" } }],
      deny: { conditions: [{ key: 1, operator: "Equals", value: 2 }] },
    },
  ],
  "a deny key that fails to resolve": [
    { list: containers, deny: { conditions: [{ key: "{{ element.nope.deeper }}", operator: "Equals", value: 1 }] } },
  ],
  "an unknown operator": [{ list: containers, deny: { conditions: [{ key: 1, operator: "Bogus", value: 1 }] } }],
  "a pattern on the element": [{ list: containers, pattern: { image: "*:*" } }],
  "elementScope false matches the resource": [
    { list: containers, elementScope: false, pattern: { metadata: { name: "{{ element.name }}" } } },
  ],
  "request.object is read from the old object on DELETE": [
    {
      list: containers,
      deny: { conditions: [{ key: "{{ request.object.metadata.name }}", operator: "Equals", value: "old" }] },
    },
  ],
  "nested foreach sees element0 and element1": [
    {
      list: containers,
      foreach: [
        {
          list: "element.securityContext.capabilities.drop || `[]`",
          deny: {
            conditions: [
              {
                key: "{{ element1 }}-{{ elementIndex1 }}-{{ element0.name }}-{{ elementIndex0 }}-{{ element }}",
                operator: "Equals",
                value: "NET_RAW-1-c0-0-NET_RAW",
              },
            ],
          },
        },
      ],
    },
  ],
  "a missing list gives no result": [
    { list: "request.object.spec.initContainers", deny: { conditions: [{ key: 1, operator: "Equals", value: 1 }] } },
  ],
  "a list that is not a list": [
    { list: "request.object.metadata", deny: { conditions: [{ key: 1, operator: "Equals", value: 1 }] } },
  ],
};

const resources: Record<string, JsonObject> = {
  compliant: pod([{ drop: ["ALL"] }, { drop: ["ALL"], add: ["NET_BIND_SERVICE"] }]),
  violating: pod([{ drop: ["ALL", "NET_RAW"] }, { add: ["SYS_ADMIN"] }, {}]),
};

describe("validateForEach gives what the general path gives", () => {
  for (const [name, body] of Object.entries(bodies)) {
    for (const [kind, resource] of Object.entries(resources)) {
      for (const operation of ["CREATE", "DELETE"]) {
        test(`${name}: ${kind} Pod, ${operation}`, () => {
          const old = { ...resource, metadata: { name: "old" } };
          const expected = generalForEach(body, "denied", scopeFor(operation, resource, old), 0);
          const actual = validateForEach(body, "denied", scopeFor(operation, resource, old), 0);
          assert.deepEqual(actual, expected);
        });
      }
    }
  }

  test("the messages are Kyverno's", () => {
    const scope = scopeFor("CREATE", resources["violating"] as JsonObject, {});
    assert.deepEqual(
      validateForEach(bodies["deny with a variable value"] ?? [], "Containers must drop `ALL` capabilities.", scope, 0),
      {
        status: "fail",
        message: "validation failure: Containers must drop `ALL` capabilities.",
      },
    );
    assert.deepEqual(validateForEach(bodies["deny with messages naming the element"] ?? [], undefined, scope, 0), {
      status: "fail",
      message: "validation failure: c1 at 1",
    });
    assert.deepEqual(validateForEach(bodies["a deny key that fails to resolve"] ?? [], undefined, scope, 0), {
      status: "error",
      message:
        'validation failure: failed to check deny conditions: failed to substitute variables in condition key: failed to resolve element.nope.deeper at path : JMESPath query failed: Unknown key "nope" in path',
    });
  });

  test("the caller's context is left as it was", () => {
    const scope = scopeFor("CREATE", resources["compliant"] as JsonObject, {});
    const before = Object.keys(scope.vars.data);
    validateForEach(bodies["nested foreach sees element0 and element1"] ?? [], undefined, scope, 0);
    assert.deepEqual(Object.keys(scope.vars.data), before);
  });
});
