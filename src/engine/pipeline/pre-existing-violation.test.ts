/** allowExistingViolations: when the old object's failure excuses the new one (Kyverno's validateOldObject). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import type { EngineRequest } from "./types.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";

const SKIPPED = "skipping the rule evaluation as pre-existing violations are allowed";

function run(doc: JsonObject, resource: JsonObject, extra: Partial<EngineRequest>) {
  const engine = createEngine(fakePorts());
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return engine.validate(r.policy, { resource, operation: "UPDATE", namespaceLabels: {}, ...extra }).rules[0];
}

/** An Enforce rule that denies every request it matches, with the match given. */
const denyAll = (match: JsonObject): JsonObject =>
  clusterPolicy("p", [{ name: "r", match, validate: { failureAction: "Enforce", message: "no", deny: {} } }], {
    background: false,
  });

const update = (extra: Partial<EngineRequest> = {}): Partial<EngineRequest> => ({
  oldResource: pod({ name: "a" }),
  ...extra,
});

describe("the old object is matched as if it were created", () => {
  test("a rule for any operation: the old object fails too, so the UPDATE is excused", () => {
    const r = run(denyAll({ any: [{ resources: { kinds: ["Pod"] } }] }), pod({ name: "a" }), update());
    assert.deepEqual([r?.status, r?.message], ["skip", SKIPPED]);
  });
  test("a rule for UPDATE only does not match a CREATE: no allowance", () => {
    const r = run(
      denyAll({ any: [{ resources: { kinds: ["Pod"], operations: ["UPDATE"] } }] }),
      pod({ name: "a" }),
      update(),
    );
    assert.equal(r?.status, "fail");
  });
  test("a rule on a subresource does not match the old object (no subresource): no allowance", () => {
    const r = run(
      denyAll({ any: [{ resources: { kinds: ["Pod/ephemeralcontainers"] } }] }),
      pod({ name: "a" }),
      update({ subresource: "ephemeralcontainers" }),
    );
    assert.equal(r?.status, "fail", "kubectl debug stays denied");
  });
  test("a rule that selects users does not match the old object's stand-in requester: no allowance", () => {
    const r = run(
      denyAll({ any: [{ resources: { kinds: ["Pod"] }, subjects: [{ kind: "User", name: "alice" }] }] }),
      pod({ name: "a" }),
      update({ userInfo: { username: "alice", groups: [], roles: [], clusterRoles: [] } }),
    );
    assert.equal(r?.status, "fail");
  });
  test("preconditions that the old object, as created, does not meet: no allowance", () => {
    const doc = clusterPolicy("p", [
      {
        name: "r",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        preconditions: { all: [{ key: "{{ request.operation }}", operator: "Equals", value: "UPDATE" }] },
        validate: { failureAction: "Enforce", message: "no", deny: {} },
      },
    ]);
    assert.equal(run(doc, pod({ name: "a" }), update())?.status, "fail");
  });
});
