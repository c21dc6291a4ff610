/** The pieces every policy-document compiler shares: how a document and a problem are named, and a guarded compile. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type Engine, problem } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { compileGuarded, compiledPolicyWarnings, documentName, documentPlace, problemText } from "./index.js";

describe("policy documents", () => {
  test("a document's place: file, document from 1, and the line when known", () => {
    assert.equal(documentPlace({ source: "p.yaml", index: 0, line: 3, value: null }), "p.yaml: document 1 (line 3)");
    assert.equal(documentPlace({ source: "p.yaml", index: 2 }), "p.yaml: document 3");
  });

  test("a document's name, or (unnamed)", () => {
    assert.equal(documentName({ metadata: { name: "a" } }), "a");
    assert.equal(documentName({ metadata: { name: 1 } }), "(unnamed)");
    assert.equal(documentName({}), "(unnamed)");
  });

  test("a problem is `field: message`, or the message alone", () => {
    assert.equal(problemText(problem("spec.rules", "bad")), "spec.rules: bad");
    assert.equal(problemText(problem("", "bad")), "bad");
  });

  test("a compiled policy's warnings name the place and the policy; other severities are left out", () => {
    const compiled = compileGuarded(
      createEngine(fakePorts()),
      clusterPolicy("p", [
        {
          name: "check",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { message: "m", pattern: { metadata: { name: "?*" } } },
        },
      ]),
    );
    assert.ok(compiled.ok);
    const policy = {
      ...compiled.policy,
      warnings: [{ ...problem("spec.x", "old"), severity: "warning" as const }, problem("spec.y", "not a warning")],
    };
    assert.deepEqual(compiledPolicyWarnings("p.yaml: document 1", policy), ["p.yaml: document 1: p: spec.x: old"]);
  });

  test("a compile that throws becomes the policy's one problem", () => {
    const throwing = {
      compile: () => {
        throw new Error("boom");
      },
    } as unknown as Engine;
    assert.deepEqual(compileGuarded(throwing, {}), {
      ok: false,
      problems: [problem("", "cannot compile the policy: boom")],
    });
  });
});
