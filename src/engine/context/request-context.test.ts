/**
 * The request a rule sees without user info (offline, no userinfo file) is Kyverno CLI's: no
 * request.userInfo, roles or clusterRoles, and no serviceAccountName or serviceAccountNamespace, so
 * a rule that reads them is an error (an unknown key), never a comparison with "".
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import type { RequestUserInfo } from "../api/resource.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";

function validate(key: string, userInfo?: RequestUserInfo): string[] {
  const engine = createEngine(fakePorts());
  const rule: JsonObject = {
    name: "r",
    match: { any: [{ resources: { kinds: ["Pod"] } }] },
    validate: { message: "denied", deny: { conditions: { any: [{ key, operator: "Equals", value: "build" }] } } },
  };
  const compiled = engine.compile(clusterPolicy("p", [rule], { background: false }));
  if (!compiled.ok) throw new Error(compiled.problems.map((p) => p.message).join("; "));
  const response = engine.validate(compiled.policy, {
    resource: pod({ name: "web" }),
    operation: "CREATE",
    namespaceLabels: {},
    ...(userInfo !== undefined ? { userInfo } : {}),
  });
  return response.rules.map((r) => `${r.status}: ${r.message}`);
}

const user = (username: string): RequestUserInfo => ({ username, groups: [], roles: [], clusterRoles: [] });

describe("the request context without and with user info", () => {
  test("without user info, serviceAccountName is an unknown key, as in Kyverno's CLI", () => {
    const [out] = validate("{{ serviceAccountName }}");
    assert.match(
      String(out),
      /^error: .*failed to resolve serviceAccountName at path .*Unknown key "serviceAccountName"/,
    );
  });

  test("without user info, request.userInfo is absent: a default stands in, a plain read is null", () => {
    assert.deepEqual(validate("{{ request.userInfo.username || 'build' }}"), ["fail: denied"]);
    assert.deepEqual(validate("{{ request.roles || 'build' }}"), ["fail: denied"]);
  });

  test("a ServiceAccount's user gives its name and namespace", () => {
    assert.deepEqual(validate("{{ serviceAccountName }}", user("system:serviceaccount:ci:build")), ["fail: denied"]);
    assert.deepEqual(validate("{{ serviceAccountNamespace }}", user("system:serviceaccount:ci:build")), [
      "pass: validation rule 'r' passed.",
    ]);
  });

  test("another user gives empty names, not an unknown key", () => {
    assert.deepEqual(validate("{{ serviceAccountName }}", user("alice")), ["pass: validation rule 'r' passed."]);
  });
});
