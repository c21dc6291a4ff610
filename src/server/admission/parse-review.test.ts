/** Strict AdmissionReview checking: every bad field is named; nothing throws. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { handleMutate, handlePolicyValidate, handleValidate, parseReview } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const pod: JsonObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default" },
  spec: { containers: [] },
};
const good = reviewOf(pod);
const goodRequest = good["request"] as JsonObject;
const withRequest = (patch: Record<string, unknown>): unknown => ({ ...good, request: { ...goodRequest, ...patch } });

describe("parseReview rejects malformed reviews, naming the field", () => {
  const cases: [string, unknown, string][] = [
    ["not an object", [1, 2], "body: must be a JSON object (an AdmissionReview) (got a list)"],
    ["a string", "hello", 'body: must be a JSON object (an AdmissionReview) (got "hello")'],
    ["null", null, "body: must be a JSON object (an AdmissionReview) (got null)"],
    [
      "wrong apiVersion",
      { ...good, apiVersion: "admission.k8s.io/v1beta1" },
      'apiVersion: must be "admission.k8s.io/v1" (got "admission.k8s.io/v1beta1")',
    ],
    [
      "missing apiVersion",
      { kind: "AdmissionReview", request: goodRequest },
      'apiVersion: must be "admission.k8s.io/v1" (got nothing)',
    ],
    ["wrong kind", { ...good, kind: "AdmissionRequest" }, 'kind: must be "AdmissionReview" (got "AdmissionRequest")'],
    ["missing request", { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }, "request: is required"],
    ["request not an object", { ...good, request: "x" }, 'request: must be an object (got "x")'],
    ["missing uid", withRequest({ uid: undefined }), "request.uid: must be a non-empty string (got nothing)"],
    ["numeric uid", withRequest({ uid: 42 }), "request.uid: must be a non-empty string (got 42)"],
    [
      "bad operation",
      withRequest({ operation: "PATCH" }),
      'request.operation: must be one of CREATE, UPDATE, DELETE, CONNECT (got "PATCH")',
    ],
    [
      "lower-case operation",
      withRequest({ operation: "create" }),
      'request.operation: must be one of CREATE, UPDATE, DELETE, CONNECT (got "create")',
    ],
    ["missing kind", withRequest({ kind: undefined }), "request.kind: is required ({group, version, kind})"],
    [
      "kind a string",
      withRequest({ kind: "Pod" }),
      'request.kind: must be an object {group, version, kind} (got "Pod")',
    ],
    [
      "kind without kind",
      withRequest({ kind: { group: "", version: "v1" } }),
      "request.kind.kind: must be a non-empty string (got nothing)",
    ],
    [
      "kind without version",
      withRequest({ kind: { group: "", kind: "Pod" } }),
      "request.kind.version: must be a non-empty string (got nothing)",
    ],
    [
      "kind group a number",
      withRequest({ kind: { group: 1, version: "v1", kind: "Pod" } }),
      "request.kind.group: must be a string (got 1)",
    ],
    [
      "resource without resource",
      withRequest({ resource: { group: "", version: "v1" } }),
      "request.resource.resource: must be a non-empty string (got nothing)",
    ],
    [
      "requestKind a list",
      withRequest({ requestKind: [] }),
      "request.requestKind: must be an object {group, version, kind} (got a list)",
    ],
    ["namespace a number", withRequest({ namespace: 3 }), "request.namespace: must be a string (got 3)"],
    ["name an object", withRequest({ name: {} }), "request.name: must be a string (got an object)"],
    ["subResource a bool", withRequest({ subResource: true }), "request.subResource: must be a string (got true)"],
    [
      "object a list",
      withRequest({ object: [] }),
      "request.object: must be an object (a Kubernetes resource) or null (got a list)",
    ],
    [
      "oldObject a string",
      withRequest({ oldObject: "x" }),
      'request.oldObject: must be an object (a Kubernetes resource) or null (got "x")',
    ],
    ["dryRun a string", withRequest({ dryRun: "yes" }), 'request.dryRun: must be true or false (got "yes")'],
    [
      "userInfo a string",
      withRequest({ userInfo: "alice" }),
      'request.userInfo: must be an object {username, uid, groups, extra} (got "alice")',
    ],
    [
      "username a number",
      withRequest({ userInfo: { username: 1 } }),
      "request.userInfo.username: must be a string (got 1)",
    ],
    [
      "groups not strings",
      withRequest({ userInfo: { username: "a", groups: ["x", 2] } }),
      "request.userInfo.groups[1]: must be a string (got 2)",
    ],
    [
      "extra not lists",
      withRequest({ userInfo: { username: "a", extra: { scopes: "x" } } }),
      'request.userInfo.extra.scopes: must be a list of strings (got "x")',
    ],
    [
      "options a number",
      withRequest({ options: 5 }),
      "request.options: must be an object (a Kubernetes resource) or null (got 5)",
    ],
  ];
  for (const [name, body, message] of cases) {
    test(name, () => {
      assert.deepEqual(parseReview(body), { ok: false, error: message });
    });
  }
});

describe("parseReview accepts what the API server sends", () => {
  test("a full CREATE", () => {
    const r = parseReview(good);
    assert.ok(r.ok);
    assert.equal(r.request.operation, "CREATE");
    assert.deepEqual(r.request.kind, { group: "", version: "v1", kind: "Pod" });
    assert.deepEqual(r.request.userInfo, { username: "alice", groups: ["system:authenticated"] });
  });
  test("optional fields absent or null: an empty user, no object", () => {
    const r = parseReview(withRequest({ userInfo: undefined, object: null, resource: null, name: null }));
    assert.ok(r.ok);
    assert.deepEqual(r.request.userInfo, { username: "", groups: [] });
    assert.equal(r.request.object, null);
    assert.equal(r.request.resource, undefined);
  });
  test("a long bad value is shortened in the message", () => {
    const r = parseReview(withRequest({ operation: "X".repeat(200) }));
    assert.ok(!r.ok && r.error.length < 160);
  });
});

describe("odd shapes never throw", () => {
  const hostile = new Proxy(
    {},
    {
      get: () => {
        throw new Error("boom");
      },
    },
  );
  const rejected: unknown[] = [
    undefined,
    0,
    NaN,
    true,
    Symbol("s"),
    () => 1,
    hostile,
    Object.create(null),
    { request: hostile, apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" },
    withRequest({ kind: hostile }),
    withRequest({ userInfo: { username: "a", groups: hostile } }),
  ];
  const { deps } = fakeDeps({ policies: [] });
  for (const [i, body] of rejected.entries()) {
    test(`shape ${i} is a 400 from every handler`, () => {
      assert.equal(parseReview(body).ok, false);
      for (const handle of [handleValidate, handleMutate, handlePolicyValidate])
        assert.equal(handle(body, deps).status, 400);
    });
  }
  test("an object that throws when read is answered, not thrown: denied, or allowed with a warning through an ignore webhook", () => {
    const body = withRequest({ object: hostile });
    const fail = handleValidate(body, deps, "fail");
    assert.equal(fail.status, 200);
    assert.equal(fail.status === 200 && fail.body.response.allowed, false);
    assert.match(
      fail.status === 200 ? (fail.body.response.status?.message ?? "") : "",
      /^bylaw: internal error while handling the validate request: boom/,
    );
    const ignore = handleMutate(body, deps, "ignore");
    assert.ok(ignore.status === 200 && ignore.body.response.allowed && ignore.body.response.warnings?.length === 1);
  });
});
