/**
 * engine.validateHttp: HTTP-mode ValidatingPolicies on HTTP requests, with Kyverno's CLI results and
 * texts (each checked beside `kyverno apply POLICY --http-payload FILE`, Kyverno 1.19.0).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../api/json.js";
import { createEngine } from "../engine.js";
import { decodeCheckRequest } from "../cel/kyverno/http-request.js";
import { canonicalHeaderKey } from "../cel/kyverno/http-authz.js";
import { fakePorts } from "../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());

function compile(doc: JsonObject) {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}
const httpPolicy = (name: string, spec: JsonObject, mode = "HTTP") =>
  compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name },
    spec: { evaluation: { mode }, ...spec },
  });

function run(policy: ReturnType<typeof compile>, payload: JsonValue): string[][] {
  const decoded = decodeCheckRequest(payload);
  if (!decoded.ok) throw new Error(decoded.error);
  return engine.validateHttp(policy, { request: decoded.value }).rules.map((r) => [r.rule, r.status, r.message]);
}

const needsAuth = httpPolicy("http-check", {
  variables: [{ name: "auth", expression: 'object.attributes.Header("authorization")' }],
  validations: [
    { expression: 'size(variables.auth) == 0 ? http.Denied("missing auth").Response() : null' },
    {
      expression:
        'object.attributes.QueryParam("debug") == ["true"] ? http.Denied("no debug for " + object.attributes.path).Response() : null',
    },
    { expression: "http.Allowed().Response()" },
  ],
});
const onlyPost = httpPolicy("only-post", {
  matchConditions: [{ name: "post", expression: 'object.attributes.method == "POST"' }],
  validations: [
    {
      expression:
        'object.attributes.host == "ok.example" ? http.Allowed().Response() : http.Denied("bad host " + object.attributes.host).Response()',
    },
  ],
});
const allow = {
  attributes: { method: "GET", header: { Authorization: ["Bearer x"] }, host: "ok.example", path: "/a", query: {} },
};
const deny = {
  attributes: { method: "POST", header: {}, host: "bad.example", path: "/b", query: { debug: ["true"] } },
};

describe("engine.validateHttp", () => {
  test("the first validation that is not null decides; the rule is named after the policy", () => {
    assert.deepEqual(run(needsAuth, allow), [["http-check", "pass", "request allowed"]]);
    assert.deepEqual(run(needsAuth, deny), [["http-check", "fail", "request denied, reason: missing auth"]]);
    const debug = { attributes: { header: { Authorization: ["x"] }, path: "/d", query: { debug: ["true"] } } };
    assert.deepEqual(run(needsAuth, debug), [["http-check", "fail", "request denied, reason: no debug for /d"]]);
  });

  test("a false matchCondition, or no validation deciding, is skip 'request does not match'", () => {
    assert.deepEqual(run(onlyPost, allow), [["only-post", "skip", "request does not match"]]);
    assert.deepEqual(run(onlyPost, deny), [["only-post", "fail", "request denied, reason: bad host bad.example"]]);
    const undecided = httpPolicy("undecided", { validations: [{ expression: "null" }] });
    assert.deepEqual(run(undecided, allow), [["undecided", "skip", "request does not match"]]);
  });

  test("Header() finds a header by its canonical name (as Go's textproto); header[...] reads the map as given", () => {
    const p = httpPolicy("hdr", {
      validations: [
        {
          expression:
            'object.attributes.Header("x-team") == ["a"] ? http.Allowed().Response() : http.Denied(string(size(object.attributes.header))).Response()',
        },
      ],
    });
    assert.deepEqual(run(p, { attributes: { header: { "X-Team": ["a"] } } }), [["hdr", "pass", "request allowed"]]);
    // A lower-case key in the payload is not found by Header() (Go looks up "X-Team").
    assert.deepEqual(run(p, { attributes: { header: { "x-team": ["a"] } } }), [
      ["hdr", "fail", "request denied, reason: 1"],
    ]);
    assert.equal(canonicalHeaderKey("content-TYPE"), "Content-Type");
    assert.equal(canonicalHeaderKey("bad header"), "bad header");
  });

  test("an evaluation error is an error under failurePolicy Fail, a skip under Ignore", () => {
    const expr = 'object.attributes.header["X-Missing"][0] == "a" ? http.Allowed().Response() : null';
    const fail = httpPolicy("runtime-err", { validations: [{ expression: expr }] });
    const ignore = httpPolicy("runtime-ign", { failurePolicy: "Ignore", validations: [{ expression: expr }] });
    assert.deepEqual(run(fail, allow), [["runtime-err", "error", "no such key: X-Missing"]]);
    assert.deepEqual(run(ignore, allow), [["runtime-ign", "skip", "request does not match"]]);
  });

  test("an expression that does not compile, or answers no CheckResponse, is an error in Kyverno's words", () => {
    const wrongType = httpPolicy("bad-type", { validations: [{ expression: "http.Allowed()" }] });
    assert.deepEqual(run(wrongType, allow), [
      [
        "bad-type",
        "error",
        'failed to compile HTTP policy bad-type: spec.validations[0].expression: Invalid value: "http.Allowed()": rule response output is expected to be of type http.CheckResponse',
      ],
    ]);
    const typo = httpPolicy("typo", { validations: [{ expression: "object.attributes.nope" }] });
    assert.deepEqual(run(typo, allow), [
      [
        "typo",
        "error",
        "failed to compile HTTP policy typo: spec.validations[0].expression: Invalid value: \"object.attributes.nope\": ERROR: <input>:1:18: undefined field 'nope'\n | object.attributes.nope\n | .................^",
      ],
    ]);
    const mcp = httpPolicy("mcp", { validations: [{ expression: 'object.mcp.request.Method == "x" ? null : null' }] });
    assert.match(run(mcp, allow)[0]?.[2] ?? "", /Bylaw does not evaluate MCP requests \(object\.mcp\) yet/);
  });

  test("JSON-mode and Kubernetes-mode policies never run on an HTTP request, nor an HTTP policy on a resource", () => {
    const json = httpPolicy("json", { validations: [{ expression: "true" }] }, "JSON");
    assert.deepEqual(run(json, allow), []);
    assert.deepEqual(engine.validateJson(needsAuth, { payload: allow }).rules, []);
  });
});

describe("decodeCheckRequest (Go's encoding/json into kyverno-authz's CheckRequest)", () => {
  test("keys match fields ignoring case; absent fields are empty; body is base64", () => {
    const r = decodeCheckRequest({ Attributes: { METHOD: "PUT", body: "aGk=", contentLength: 2 } });
    assert.ok(r.ok);
    assert.equal(r.value.attributes.method, "PUT");
    assert.equal(new TextDecoder().decode(r.value.attributes.body), "hi");
    assert.equal(r.value.attributes.contentLength, 2n);
    assert.deepEqual(r.value.attributes.header, {});
    assert.equal(r.value.attributes.path, "");
  });

  test("a value of the wrong type is refused as Go refuses it", () => {
    const bad = (v: JsonValue) => {
      const r = decodeCheckRequest(v);
      return r.ok ? "decoded" : r.error;
    };
    assert.equal(
      bad({ attributes: { contentLength: "x" } }),
      "json: cannot unmarshal string into Go struct field CheckRequestAttributes.attributes.contentLength of type int64",
    );
    assert.equal(bad([]), "json: cannot unmarshal array into Go value of type http.CheckRequest");
    assert.equal(
      bad({ attributes: { header: { a: "b" } } }),
      "json: cannot unmarshal string into Go struct field CheckRequestAttributes.attributes.header of type []string",
    );
    assert.equal(bad({ attributes: { body: "not base64!" } }), "illegal base64 data at input byte 3");
    assert.equal(bad({ attributes: { body: "aGk" } }), "illegal base64 data at input byte 0");
    assert.equal(
      bad({ attributes: { contentLength: 1.5 } }),
      "json: cannot unmarshal number 1.5 into Go struct field CheckRequestAttributes.attributes.contentLength of type int64",
    );
  });
});
