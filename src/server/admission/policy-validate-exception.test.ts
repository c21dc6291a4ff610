/**
 * The policy webhook for PolicyExceptions of both groups (policy-validate-exception.ts): compiled as
 * served, and Kyverno's warnings when `serve`'s exception flags mean it will not be honoured.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { handlePolicyValidate } from "./index.js";
import {
  type ClusterExceptions,
  DISABLED_POLEX,
  FOLDER_MODE,
  NAMESPACE_NOT_LISTED,
} from "./policy-validate-exception.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import { textOf } from "../../engine/index.js";

const DEPRECATED =
  "PolicyException (kyverno.io) is deprecated and will be removed in a future release; migrate to PolicyException (policies.kyverno.io), see https://kyverno.io/docs/guides/migration-to-cel/";

const v2 = (
  spec: JsonObject,
  metadata: JsonObject = { name: "allow-tools", namespace: "policy-exceptions" },
  apiVersion = "kyverno.io/v2",
): JsonObject => ({ apiVersion, kind: "PolicyException", metadata, spec });
const validSpec: JsonObject = {
  exceptions: [{ policyName: "disallow-host-namespaces", ruleNames: ["host-namespaces", "autogen-host-namespaces"] }],
  match: { any: [{ resources: { kinds: ["Pod", "Deployment"], names: ["tool-*"] } }] },
};
const cel = (
  namespace: string,
  spec: JsonObject = { policyRefs: [{ kind: "ValidatingPolicy", name: "vp" }] },
): JsonObject => ({
  apiVersion: "policies.kyverno.io/v1beta1",
  kind: "PolicyException",
  metadata: { name: "allow-batch", namespace },
  spec,
});

function answer(doc: JsonObject, scope?: ClusterExceptions, extra: JsonObject = {}) {
  const { deps } = fakeDeps();
  const group = textOf(doc["apiVersion"]).split("/")[0] ?? "";
  const body = reviewOf(doc, { resource: { group, version: "v2", resource: "policyexceptions" }, ...extra });
  const r = handlePolicyValidate(body, scope === undefined ? deps : { ...deps, clusterExceptions: scope });
  assert.equal(r.status, 200);
  if (r.status !== 200) throw new Error("unreachable");
  return r.body.response;
}

describe("policyvalidate: kyverno.io PolicyException (v2, v2beta1)", () => {
  test("a valid one is allowed with Kyverno's deprecation notice", () => {
    assert.deepEqual(answer(v2(validSpec)), {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
      warnings: [DEPRECATED],
    });
    assert.equal(answer(v2(validSpec, undefined, "kyverno.io/v2beta1")).allowed, true);
  });

  test("one without exceptions or match is denied, naming the exception and each field", () => {
    const r = answer(v2({}));
    assert.equal(r.allowed, false);
    assert.match(r.status?.message ?? "", /^PolicyException allow-tools: /);
    assert.match(r.status?.message ?? "", /spec\.exceptions/);
    assert.match(r.status?.message ?? "", /spec\.match/);
    assert.deepEqual(r.warnings, [DEPRECATED], "the deprecation notice comes with the denial too");
  });

  test("user information in match while background processing is on is denied (Kyverno's ValidateNoUserInfo); with background: false it is allowed", () => {
    const spec = {
      ...validSpec,
      match: { any: [{ resources: { kinds: ["Pod"] }, subjects: [{ kind: "User", name: "alice" }] }] },
    };
    const r = answer(v2(spec));
    assert.equal(r.allowed, false);
    assert.match(
      r.status?.message ?? "",
      /spec\.match\.any\[0\]\.subjects: Forbidden: Usage of user info is forbidden/,
    );
    assert.equal(answer(v2({ ...spec, background: false })).allowed, true);
  });

  test("a condition operator Kyverno does not know is denied at its path", () => {
    const r = answer(
      v2({
        ...validSpec,
        conditions: { any: [{ key: "{{ request.object.metadata.name }}", operator: "Matches", value: "x" }] },
      }),
    );
    assert.equal(r.allowed, false);
    assert.match(r.status?.message ?? "", /spec\.conditions\.any\[0\]\.operator/);
  });

  test("the namespace comes from the request when the object has none", () => {
    const r = answer(
      v2(validSpec, { name: "allow-tools" }),
      { enabled: true, namespaces: ["policy-exceptions"] },
      { namespace: "policy-exceptions" },
    );
    assert.deepEqual(r.warnings, [DEPRECATED], "policy-exceptions is a listed namespace: no scope warning");
  });

  test("DELETE is allowed untouched", () => {
    assert.deepEqual(answer(v2({}), { enabled: false }, { operation: "DELETE" }), {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
    });
  });
});

describe("policyvalidate: Kyverno's warnings for a PolicyException that will not be honoured", () => {
  test("exceptions off (no --enable-policy-exception): Kyverno's text first, then the deprecation notice; on a denial too", () => {
    assert.deepEqual(answer(v2(validSpec), { enabled: false }).warnings, [DISABLED_POLEX, DEPRECATED]);
    assert.equal(DISABLED_POLEX, "PolicyException resources would not be processed until it is enabled.");
    const denied = answer(v2({}), { enabled: false });
    assert.equal(denied.allowed, false);
    assert.deepEqual(denied.warnings, [DISABLED_POLEX, DEPRECATED]);
  });

  test("a namespace --exception-namespace does not name: Kyverno's text; a named one, or '*': none", () => {
    const scope: ClusterExceptions = { enabled: true, namespaces: ["policy-exceptions", "platform"] };
    assert.deepEqual(answer(v2(validSpec, { name: "x", namespace: "team-a" }), scope).warnings, [
      NAMESPACE_NOT_LISTED,
      DEPRECATED,
    ]);
    assert.equal(NAMESPACE_NOT_LISTED, "PolicyException resource namespace must match the defined namespace.");
    assert.deepEqual(answer(v2(validSpec, { name: "x", namespace: "platform" }), scope).warnings, [DEPRECATED]);
    assert.deepEqual(
      answer(v2(validSpec, { name: "x", namespace: "team-a" }), { enabled: true, namespaces: "all" }).warnings,
      [DEPRECATED],
    );
  });

  test("serve --policies: exceptions created in the cluster are never read, and the warning says so", () => {
    assert.deepEqual(answer(v2(validSpec), "folder").warnings, [FOLDER_MODE, DEPRECATED]);
    assert.match(FOLDER_MODE, /--policies folder/);
  });

  test("the policies.kyverno.io PolicyException gets the same warnings, without a deprecation notice", () => {
    assert.deepEqual(answer(cel("team-a"), { enabled: false }).warnings, [DISABLED_POLEX]);
    assert.deepEqual(answer(cel("team-a"), { enabled: true, namespaces: ["policy-exceptions"] }).warnings, [
      NAMESPACE_NOT_LISTED,
    ]);
    assert.equal(
      answer(cel("policy-exceptions"), { enabled: true, namespaces: ["policy-exceptions"] }).warnings,
      undefined,
    );
    const invalid = answer(cel("team-a", {}), { enabled: false });
    assert.equal(invalid.allowed, false);
    assert.match(invalid.status?.message ?? "", /^PolicyException allow-batch: spec\.policyRefs: Required value/);
    assert.deepEqual(invalid.warnings, [DISABLED_POLEX]);
  });
});
