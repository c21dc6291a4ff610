/** The prepared one-variable path gives exactly what the general `resolveVariable` gives. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "../api/json.js";
import type { Operation } from "../api/resource.js";
import { createJmesPath } from "../jmespath/index.js";
import type { EnginePorts } from "../ports.js";
import { ExpressionCache } from "./expression-cache.js";
import { resolveVariable } from "./resolve-variable.js";
import { substituteAll } from "./substitute-all.js";
import { compileTemplate } from "./template.js";
import type { SubstitutionScope } from "./types.js";
import { WholeVariable } from "./whole-variable.js";

const data = (operation: string): JsonObject => ({
  request: {
    operation,
    object: { metadata: { name: "new" }, spec: { drop: ["ALL"] } },
    oldObject: { metadata: { name: "old" }, spec: { drop: ["NET_RAW"] } },
  },
  element: { name: "c1", templated: { inner: "{{ request.object.metadata.name }}" } },
});

function scope(operation: string, explicit?: Operation): SubstitutionScope {
  const jmespath = createJmesPath({ functions: [] });
  const base = {
    data: data(operation),
    jmespath,
    fnctx: { ports: {} as EnginePorts },
    cache: new ExpressionCache(jmespath),
  };
  return explicit === undefined ? base : { ...base, operation: explicit };
}

const expressions = [
  "request.object.metadata.name",
  "request.object.spec.drop[] || `[]`",
  "element.securityContext.capabilities.drop[] || `[]`",
  "request.operation || 'BACKGROUND'",
  "element.templated",
  "request.object.nope.deeper",
  "nope",
  "request.object.metadata.name ==",
  "length(request.object.metadata)",
  "",
];

describe("WholeVariable", () => {
  for (const operation of ["CREATE", "DELETE"]) {
    for (const expression of expressions) {
      test(`${operation} ${JSON.stringify(expression)}: same value or error text as the general path`, () => {
        const general = resolveVariable(expression, "/validate/deny/conditions/all/0/key", scope(operation));
        const prepared = new WholeVariable(expression).resolve("/validate/deny/conditions/all/0/key", scope(operation));
        assert.deepEqual(prepared, general);
      });
    }
  }

  test("DELETE reads request.oldObject, from the scope's operation or from request.operation", () => {
    const v = new WholeVariable("request.object.metadata.name");
    assert.deepEqual(v.resolve("", scope("DELETE")), { ok: true, value: "old" });
    assert.deepEqual(v.resolve("", scope("CREATE", "DELETE")), { ok: true, value: "old" });
    assert.deepEqual(v.resolve("", scope("DELETE", "CREATE")), { ok: true, value: "new" });
    assert.deepEqual(v.resolve("", scope("CREATE")), { ok: true, value: "new" });
  });

  test("a DELETE syntax error names the rewritten variable, as the general path does", () => {
    const v = new WholeVariable("request.object.metadata.name ==");
    const r = v.resolve("/p", scope("DELETE"));
    assert.ok(!r.ok);
    assert.match(
      r.error.message,
      /^failed to resolve request\.oldObject\.metadata\.name == at path \/p: incorrect query request\.oldObject\.metadata\.name ==: /,
    );
    assert.equal(r.error.path, "/p");
  });

  test("an empty variable is an invalid query", () => {
    const r = new WholeVariable("").resolve("/x", scope("CREATE"));
    assert.deepEqual(r, {
      ok: false,
      error: {
        kind: "variable-substitution",
        message: "failed to resolve  at path /x: invalid query (nil)",
        path: "/x",
      },
    });
  });
});

describe("templates", () => {
  test("a string that is one variable is prepared; {{@}} and strings with more are not", () => {
    assert.ok(compileTemplate("{{ a.b }}").variable instanceof WholeVariable);
    assert.equal(compileTemplate("{{ a.b }}").variable?.expression, "a.b");
    assert.equal(compileTemplate("{{@}}").variable, undefined);
    assert.equal(compileTemplate("{{@}}").whole, "@");
    assert.equal(compileTemplate("x{{ a.b }}").variable, undefined);
    assert.equal(compileTemplate("{{ a }}{{ b }}").variable, undefined);
  });

  test("remember whether the string holds a reference", () => {
    assert.equal(compileTemplate("{{ a }}").references, false);
    assert.equal(compileTemplate("{{ a }}$(./b)").references, true);
  });
});

describe("substituteAll on a policy string scanned at load", () => {
  for (const operation of ["CREATE", "DELETE"]) {
    for (const expression of expressions) {
      const text = `{{ ${expression} }}`;
      test(`${operation} ${JSON.stringify(text)}: same as a string never seen before`, () => {
        const pinned = scope(operation);
        pinned.cache.pin(() => pinned.cache.template(text));
        assert.deepEqual(
          substituteAll(text, { ...pinned, basePath: "/validate/deny" }),
          substituteAll(text, { ...scope(operation), basePath: "/validate/deny" }),
        );
      });
    }
  }

  test("a map the variable gives is data: its own `{{ }}` are not substituted (Kyverno walks into it; known-gaps.tsv)", () => {
    const s = scope("CREATE");
    s.cache.pin(() => s.cache.template("{{ element.templated }}"));
    const templated = (s.data["element"] as JsonObject)["templated"];
    assert.deepEqual(substituteAll("{{ element.templated }}", s), { ok: true, value: templated });
  });

  test("a list the variable gives comes back as it is when it holds no variables", () => {
    const s = scope("CREATE");
    const list = (s.data["request"] as JsonObject)["object"] as JsonObject;
    const r = substituteAll("{{ request.object.spec.drop }}", s);
    assert.ok(r.ok);
    assert.equal(r.value, (list["spec"] as JsonObject)["drop"]);
  });
});
