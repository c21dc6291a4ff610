import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonValue } from "../api/json.js";
import { fakeScope } from "../../../test/support/fake-jmespath.js";
import { substituteReferences } from "./references.js";
import { substituteAll } from "./substitute-all.js";

const probes = (port: string, readiness: JsonValue) => ({
  spec: {
    containers: [{ livenessProbe: { tcpSocket: { port } }, readinessProbe: { tcpSocket: { port: readiness } } }],
  },
});

function portOf(value: JsonValue): JsonValue {
  const r = value as { spec: { containers: { livenessProbe: { tcpSocket: { port: JsonValue } } }[] } };
  return r.spec.containers[0]?.livenessProbe.tcpSocket.port ?? null;
}

describe("$( ) references resolve inside the policy document", () => {
  const cases: { name: string; port: string; readiness: JsonValue; expected: JsonValue }[] = [
    { name: "relative path", port: "$(./../../../readinessProbe/tcpSocket/port)", readiness: "3000", expected: "3000" },
    {
      name: "operator prefix",
      port: "$(<./../../../readinessProbe/tcpSocket/port)",
      readiness: "3000",
      expected: "<3000",
    },
    { name: ">= prefix", port: "$(>=./../../../readinessProbe/tcpSocket/port)", readiness: "3000", expected: ">=3000" },
    {
      name: "numbers become %f text after an operator",
      port: "$(<./../../../readinessProbe/tcpSocket/port)",
      readiness: 3000,
      expected: "<3000.000000",
    },
    {
      name: "absolute path",
      port: "$(/spec/containers/0/readinessProbe/tcpSocket/port)",
      readiness: "80",
      expected: "80",
    },
    {
      name: "embedded, keeping the preceding character",
      port: "port:$(./../../../readinessProbe/tcpSocket/port)!",
      readiness: "80",
      expected: "port:80!",
    },
    { name: "escaped", port: "\\$(POD_NAME)", readiness: "80", expected: "$(POD_NAME)" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const r = substituteReferences(probes(c.port, c.readiness));
      assert.ok(r.ok, r.ok ? "" : r.error.message);
      assert.deepEqual(portOf(r.value), c.expected);
    });
  }

  test("anchors in the document's keys are ignored when looking a path up", () => {
    const r = substituteReferences({ spec: { "=(x)": "v", a: "$(./../x)" } });
    assert.deepEqual(r, { ok: true, value: { spec: { "=(x)": "v", a: "v" } } });
  });

  test("an anchor in the referring string's own path is kept, so the lookup misses (Kyverno issue #7212)", () => {
    const r = substituteReferences({ spec: { "^(containers)": [{ a: "$(./../b)", b: "v" }] } });
    assert.ok(!r.ok);
    assert.equal(r.error.message, "got nil resolved variable $(./../b) at path /spec/^(containers)/0/a: <nil>");
  });

  test("map keys are resolved too", () => {
    assert.deepEqual(substituteReferences({ a: { "$(/b)": 1 }, b: "k" }), { ok: true, value: { a: { k: 1 }, b: "k" } });
  });

  test("strings without references come back untouched", () => {
    const doc = { a: "x", b: ["$ (not one)"] };
    const r = substituteReferences(doc);
    assert.ok(r.ok && r.value === doc);
  });
});

describe("reference failures carry Kyverno's message", () => {
  const cases: { doc: JsonValue; message: string }[] = [
    { doc: { spec: { a: "$(./../nope)" } }, message: "got nil resolved variable $(./../nope) at path /spec/a: <nil>" },
    {
      doc: { spec: { a: "$(./../n)", n: 5 } },
      message: "NotResolvedReferenceErr,reference $(./../n) not resolved at path /spec/a",
    },
    {
      doc: { spec: { a: "$(>./../b)", b: true } },
      message:
        "failed to resolve $(>./../b) at path /spec/a: incorrect expression: operator > does not match with value true",
    },
    {
      doc: { spec: { a: "$(<./../nope)" } },
      message:
        "failed to resolve $(<./../nope) at path /spec/a: incorrect expression: operator < does not match with value <nil>",
    },
    { doc: { a: "$(>=)" }, message: "failed to resolve $(>=) at path /a: expected path, found empty reference" },
  ];
  for (const c of cases) {
    test(c.message, () => {
      const r = substituteReferences(c.doc);
      assert.ok(!r.ok);
      assert.equal(r.error.message, c.message);
      assert.equal(r.error.kind, "reference-substitution");
    });
  }
});

describe("substituteAll resolves references before variables", () => {
  test("a reference may point at a string holding a variable", () => {
    const scope = fakeScope({ request: { object: { metadata: { name: "nginx" } } } });
    const r = substituteAll({ a: "{{ request.object.metadata.name }}", b: "$(./../a)" }, scope);
    assert.deepEqual(r, { ok: true, value: { a: "nginx", b: "nginx" } });
  });

  test("the basePath takes part in relative and absolute references", () => {
    const scope = fakeScope({}, { basePath: "/validate/pattern" });
    const r = substituteAll({ a: "$(/validate/pattern/b)", b: "x", c: "$(./../b)" }, scope);
    assert.deepEqual(r, { ok: true, value: { a: "x", b: "x", c: "x" } });
  });
});
