import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createCel } from "./create-cel.js";
import { activation, run } from "../../../test/support/cel-run.js";
import { BUDGET_EXCEEDED_MESSAGE, COST_LIMIT_MESSAGE } from "./types.js";
import { textOf } from "../api/json.js";

const pod = {
  metadata: { name: "web", labels: { app: "web" } },
  spec: {
    replicas: 3,
    ratio: 0.5,
    containers: [
      { name: "a", image: "nginx:1", securityContext: { privileged: false } },
      { name: "b", image: "busybox" },
    ],
  },
};

describe("CEL environment", () => {
  test("reads the resource: integers are int, other numbers double", () => {
    assert.equal(run("object.spec.replicas == 3 && type(object.spec.replicas) == int", pod), true);
    assert.equal(run("type(object.spec.ratio) == double", pod), true);
    assert.equal(
      run("object.spec.containers.all(c, !has(c.securityContext) || c.securityContext.privileged == false)", pod),
      true,
    );
    assert.deepEqual(run("object.spec.containers.map(c, c.name)", pod), ["a", "b"]);
  });

  test("optional types: ?. and [?] with orValue and hasValue", () => {
    assert.equal(run("object.metadata.?labels[?'app'].orValue('') == 'web'", pod), true);
    assert.equal(run("object.metadata.?annotations[?'x'].orValue('none')", pod), "none");
    assert.equal(run("object.spec.?initContainers.hasValue()", pod), false);
    assert.equal(run("optional.of(1).value() + optional.none().orValue(2)", pod), 3);
  });

  test("Kyverno's orValue compatibility: a plain value is itself, an error stays an error", () => {
    assert.equal(run("object.spec.replicas.orValue(5)", pod), 3);
    assert.equal(run("object.spec.missing.orValue(5)", pod), "eval: no such key: missing");
  });

  test("heterogeneous numeric comparison across int, uint and double", () => {
    assert.equal(run("1 < 2.5 && 2u > 1 && 3.0 >= 3"), true);
    assert.equal(run("object.spec.replicas > 2.5", pod), true);
    assert.equal(run("dyn(1) == 1.0"), true);
  });

  test("cel.bind", () => {
    assert.equal(run("cel.bind(n, object.spec.containers.size(), n * 2)", pod), 4);
  });

  test("matches is RE2: Go syntax such as (?i) and (?P<name>) works; backreferences do not exist", () => {
    assert.equal(run("'aB'.matches('(?i)b')"), true);
    assert.equal(run("'ab'.matches('a(?P<x>b)')"), true);
    assert.equal(run("matches('abc', '^a.c$')"), true);
    assert.match(textOf(run("'aa'.matches('(a)\\\\1')")), /^eval: error parsing regexp/);
  });

  test("an unknown function or variable fails at compile time, as cel-go words it, with the position", () => {
    assert.equal(
      run("object.a + nope"),
      "compile: ERROR: <input>:1:12: undeclared reference to 'nope' (in container '')\n | object.a + nope\n | ...........^",
    );
    assert.match(
      textOf(run("notAFunction('x')")),
      /^compile: ERROR: <input>:1:1: undeclared reference to 'notAFunction'/,
    );
    assert.match(textOf(run("'a'.nosuch()")), /undeclared reference to 'nosuch'/);
    assert.match(textOf(run("1 +")), /^compile: ERROR: <input>:1:4: Syntax error/);
    assert.match(textOf(run("1 + 'a'")), /^compile: ERROR: <input>:1:1: no such overload: int \+ string/);
  });

  test("errors on a later line give that line and column", () => {
    const r = createCel().compile("object.a &&\n  nope");
    assert.equal(r.ok, false);
    if (!r.ok) assert.deepEqual([r.error.line, r.error.column], [2, 3]);
  });

  test("variables.x must be declared; expectType checks the output type", () => {
    const cel = createCel();
    const bad = cel.compile("variables.nope == 1", { variableNames: ["ok"] });
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.match(bad.error.message, /undefined field 'nope'/);
    assert.equal(cel.compile("variables.ok == 1", { variableNames: ["ok"] }).ok, true);
    const notBool = cel.compile("'a'", { expectType: "bool" });
    assert.equal(notBool.ok, false);
    if (!notBool.ok) assert.match(notBool.error.message, /output is expected to be of type bool, got string/);
  });

  test("every undefined field is reported, at its '.', as cel-go reports them (checked beside kyverno apply)", () => {
    const r = createCel().compile("size(request.roles) == 0 && variables.zz == 1", { variableNames: ["a"] });
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.equal(
        r.error.message,
        [
          "ERROR: <input>:1:13: undefined field 'roles'",
          " | size(request.roles) == 0 && variables.zz == 1",
          " | ............^",
          "ERROR: <input>:1:38: undefined field 'zz'",
          " | size(request.roles) == 0 && variables.zz == 1",
          " | .....................................^",
        ].join("\n"),
      );
  });

  test("a missing key is an evaluation error in cel-go's words", () => {
    assert.equal(run("object.spec.nope == 1", pod), "eval: no such key: nope");
  });

  test("runtime errors in cel-go's words: the call with its argument types, receiver first", () => {
    const data = {
      ...pod,
      nothing: null,
      count: 3,
      names: ["a"],
      labels: { a: "b" },
      word: "w",
    };
    const cases: [string, string][] = [
      ["object.nothing.startsWith('a')", "no such overload: startsWith(null_type, string)"],
      ["object.names.startsWith('a')", "no such overload: startsWith(list, string)"],
      ["object.labels.lowerAscii()", "no such overload: lowerAscii(map)"],
      ["object.word.startsWith(object.count)", "no such overload: startsWith(string, int)"],
      ["string(object.labels)", "no such overload: string(map)"],
      // size and matches: one binding for every overload in cel-go, so only the name.
      ["size(object.nothing)", "no such overload: size"],
      ["object.count.matches('a')", "no such overload: matches"],
      // Operators, && and || on values that are not bools, ?: and the macros built on them.
      ["object.word + 1", "no such overload"],
      ["object.count < 'a'", "no such overload"],
      ["!object.word", "no such overload"],
      ["object.count == 3 && object.count", "no such overload"],
      ["object.word ? 1 : 2", "no such overload"],
      ["object.names.all(n, n)", "no such overload"],
      ["object.names.exists(n, n)", "no such overload"],
      ["object.names.filter(n, n)", "no such overload"],
      ["object.names[3] == 'a'", "index out of bounds: 3"],
      // A macro over a value that is not a list or map: cel-go names the value's Go type.
      ["object.nothing.exists(n, true)", "got 'types.Null', expected iterable type"],
      ["object.count.all(n, true)", "got 'types.Int', expected iterable type"],
    ];
    for (const [expression, text] of cases) assert.equal(run(expression, data), `eval: ${text}`, expression);
  });

  test("a hostile expression stops with cel-go's cost error, also under ||", () => {
    const ten = "[1,2,3,4,5,6,7,8,9,10]";
    const hostile = `${ten}.all(a, ${ten}.all(b, ${ten}.all(c, ${ten}.all(d, ${ten}.all(e, ${ten}.all(f, true))))))`;
    assert.equal(run(hostile), `eval: ${COST_LIMIT_MESSAGE}`);
    assert.equal(run(`false || ${hostile}`), `eval: ${COST_LIMIT_MESSAGE}`);
    assert.equal(run(`${ten}.all(a, true)`), true);
  });

  test("a shared budget runs out across expressions with Kubernetes' budget error", () => {
    const cel = createCel({ perCallCostLimit: 1000 });
    const p = cel.compile("[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, true))");
    assert.ok(p.ok);
    if (!p.ok) return;
    const budget = { remaining: 100 };
    const first = p.value.evaluate(activation(), budget);
    assert.deepEqual(first, { ok: false, error: { kind: "cel-cost", message: BUDGET_EXCEEDED_MESSAGE } });
    assert.equal(budget.remaining, 0);
  });

  test("a program compiled once evaluates against many resources", () => {
    const p = createCel().compile("object.metadata.name.startsWith('w')");
    assert.ok(p.ok);
    if (!p.ok) return;
    assert.deepEqual(p.value.evaluate(activation(pod)), { ok: true, value: true });
    assert.deepEqual(p.value.evaluate(activation({ metadata: { name: "x" } })), { ok: true, value: false });
  });
});

describe("|| and && as cel-go evaluates them", () => {
  test("an error on both sides reports the left one's (cel-js reports the right one's)", () => {
    assert.equal(run("object.nope.x == 1 || object.gone.y == 2", pod), "eval: no such key: nope");
    assert.equal(run("object.nope.x == 1 && object.gone.y == 2", pod), "eval: no such key: nope");
    assert.equal(run("object.a == 1 || object.b == 1 || object.c == 1", pod), "eval: no such key: a");
  });

  test("the short-circuit value wins over an error on either side; one error with a non-deciding side is that error", () => {
    assert.equal(run("object.nope.x == 1 || true", pod), true);
    assert.equal(run("true || object.nope.x == 1", pod), true);
    assert.equal(run("object.nope.x == 1 && false", pod), false);
    assert.equal(run("false && object.nope.x == 1", pod), false);
    assert.equal(run("object.nope.x == 1 || false", pod), "eval: no such key: nope");
    assert.equal(run("false || object.gone.y == 1", pod), "eval: no such key: gone");
    assert.equal(run("true && object.gone.y == 1", pod), "eval: no such key: gone");
    assert.equal(run("false || false", pod), false);
    assert.equal(run("true && true", pod), true);
  });

  test("a non-bool operand is cel-go's no such overload", () => {
    assert.equal(run("dyn(object.spec.replicas) || false", pod), "eval: no such overload");
  });
});
