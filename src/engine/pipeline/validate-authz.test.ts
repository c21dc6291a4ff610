/**
 * engine.validateAuthz: HTTP- and Envoy-mode ValidatingPolicies on their requests, with Kyverno's CLI results and
 * texts (each checked beside `kyverno apply POLICY --http-payload FILE` and `--envoy-payload FILE`, Kyverno 1.19.0).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../api/json.js";
import { createEngine } from "../engine.js";
import { decodeCheckRequest } from "../cel/kyverno/http-request.js";
import { canonicalHeaderKey } from "../cel/kyverno/http-authz.js";
import { decodeEnvoyRequest } from "../cel/kyverno/envoy-authz.js";
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
  return engine
    .validateAuthz(policy, { mode: "HTTP", request: decoded.value })
    .rules.map((r) => [r.rule, r.status, r.message]);
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

describe("engine.validateAuthz on HTTP requests", () => {
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

function runEnvoy(policy: ReturnType<typeof compile>, payload: string): string[][] {
  const decoded = decodeEnvoyRequest(payload);
  if (!decoded.ok) throw new Error(decoded.error);
  return engine
    .validateAuthz(policy, { mode: "Envoy", request: decoded.value })
    .rules.map((r) => [r.rule, r.status, r.message]);
}
const envoyOne = (expression: string, spec: JsonObject = {}) =>
  httpPolicy("envoy", { ...spec, validations: [{ expression }] }, "Envoy");
const check = JSON.stringify({
  attributes: {
    source: { address: { socketAddress: { address: "10.0.0.1", portValue: 5000 } } },
    request: {
      time: "2024-05-01T10:00:00Z",
      http: { method: "GET", headers: { "x-team": "a" }, size: "12", raw_body: "aGk=" },
    },
    contextExtensions: { k: "v" },
    metadataContext: { filterMetadata: { f: { n: 1 } } },
  },
});
const when = (cond: string) => `${cond} ? envoy.Allowed().Response() : envoy.Denied(418).Response()`;

// Each case checked beside `kyverno apply POLICY --envoy-payload FILE` (Kyverno 1.19.0).
describe("engine.validateAuthz on Envoy checks", () => {
  test("allowed is pass, denied fail with its status code, null skip; the rule is named after the policy", () => {
    assert.deepEqual(runEnvoy(envoyOne("envoy.Allowed().WithHeader('a', 'b').Response()"), check), [
      ["envoy", "pass", "request allowed"],
    ]);
    assert.deepEqual(runEnvoy(envoyOne("envoy.Denied(403).WithBody('no').Response().WithMessage('m')"), check), [
      ["envoy", "fail", "request denied with status code 403"],
    ]);
    assert.deepEqual(runEnvoy(envoyOne("null"), check), [["envoy", "skip", "request does not match"]]);
    const post = envoyOne("envoy.Allowed().Response()", {
      matchConditions: [{ name: "post", expression: 'object.attributes.request.http.method == "POST"' }],
    });
    assert.deepEqual(runEnvoy(post, check), [["envoy", "skip", "request does not match"]]);
  });

  test("fields are read by their proto names; an unset one reads as its default", () => {
    for (const cond of [
      'object.attributes.source.address.socket_address.port_value == 5000u && object.attributes.source.address.socket_address.address == "10.0.0.1"',
      'object.attributes.request.http.size == 12 && object.attributes.request.http.raw_body == b"hi"',
      'object.attributes.request.time == timestamp("2024-05-01T10:00:00Z")',
      'object.attributes.metadata_context.filter_metadata["f"]["n"] == 1.0 && object.attributes.context_extensions["k"] == "v"',
      'object.attributes.destination.address.socket_address.port_value == 0u && object.attributes.tls_session.sni == ""',
      "size(object.attributes.destination.labels) == 0 && size(object.attributes.request.http.header_map.headers) == 0",
    ])
      assert.deepEqual(runEnvoy(envoyOne(when(cond)), check), [["envoy", "pass", "request allowed"]], cond);
  });

  test("has() answers whether a field is set (proto3 presence), not whether it can be read", () => {
    const present = (field: string) => runEnvoy(envoyOne(when(`has(${field})`)), check)[0]?.[1];
    assert.equal(present("object.attributes.source"), "pass");
    assert.equal(present("object.attributes.request.http.method"), "pass");
    assert.equal(present("object.attributes.request.time"), "pass");
    assert.equal(present("object.attributes.destination"), "fail");
    assert.equal(present("object.attributes.request.http.fragment"), "fail");
    assert.equal(present("object.attributes.source.address.pipe"), "fail");
    assert.equal(present("object.attributes.destination.labels"), "fail");
  });

  test("an evaluation error is an error (skip under Ignore); a wrong type a compile error in Kyverno's words", () => {
    assert.deepEqual(runEnvoy(envoyOne("envoy.Denied(9999999999).Response()"), check), [
      ["envoy", "error", "integer overflow"],
    ]);
    const missing = 'object.attributes.request.http.headers["nope"] == "a" ? envoy.Allowed().Response() : null';
    assert.deepEqual(runEnvoy(envoyOne(missing), check), [["envoy", "error", "no such key: nope"]]);
    assert.deepEqual(runEnvoy(envoyOne(missing, { failurePolicy: "Ignore" }), check), [
      ["envoy", "skip", "request does not match"],
    ]);
    assert.deepEqual(runEnvoy(envoyOne("envoy.Allowed()"), check), [
      [
        "envoy",
        "error",
        'failed to compile envoy policy envoy: spec.validations[0].expression: Invalid value: "envoy.Allowed()": rule response output is expected to be of type envoy.service.auth.v3.CheckResponse',
      ],
    ]);
    assert.match(runEnvoy(envoyOne(when("object.attributes.foo == 1")), check)[0]?.[2] ?? "", /undefined field 'foo'/);
  });

  test("an Envoy policy never runs on an HTTP request, nor an HTTP policy on an Envoy check", () => {
    assert.deepEqual(runEnvoy(needsAuth, check), []);
    const decoded = decodeCheckRequest(allow);
    assert.ok(decoded.ok);
    assert.deepEqual(
      engine.validateAuthz(envoyOne("envoy.Allowed().Response()"), { mode: "HTTP", request: decoded.value }).rules,
      [],
    );
  });
});

describe("decodeEnvoyRequest (protojson into Envoy's CheckRequest)", () => {
  const error = (text: string) => {
    const r = decodeEnvoyRequest(text);
    return r.ok ? "decoded" : r.error.replace("proto:\u00a0", "proto: ");
  };
  test("refuses what protojson refuses, in its words and at its place", () => {
    const cases: [string, string][] = [
      ['{"attributes": {"request": {"http": {"method": 5}}}}', "(line 1:48): invalid value for string field method: 5"],
      ['{"attributes": {"request": {"http": {"size": 1.5}}}}', "(line 1:46): invalid value for int64 field size: 1.5"],
      [
        '{"attributes": {"request": {"http": {"headers": {"a": 1}}}}}',
        "(line 1:55): invalid value for string field value: 1",
      ],
      ['{"attributes": {"request": {"http": {"headers": []}}}}', "syntax error (line 1:49): unexpected token ["],
      [
        '{"attributes": {"request": {"http": {"raw_body": "!!"}}}}',
        '(line 1:50): invalid value for bytes field rawBody: "!!"',
      ],
      [
        '{"attributes": {"request": {"http": {"rawBody": "", "raw_body": ""}}}}',
        '(line 1:53): duplicate field "raw_body"',
      ],
      ["[]", "syntax error (line 1:1): unexpected token ["],
      ["\n", "syntax error (line 2:1): unexpected token "],
      ['{"attributes": {"request": {"time": "bad"}}}', '(line 1:37): invalid google.protobuf.Timestamp value "bad"'],
      [
        '{"attributes": {"source": {"address": {"socket_address": {"port_value": 1}, "pipe": {}}}}}',
        '(line 1:77): error parsing "pipe", oneof envoy.config.core.v3.Address.address is already set',
      ],
      [
        '{"attributes": {"source": {"address": {"socket_address": {"protocol": "XX"}}}}}',
        '(line 1:71): invalid value for enum field protocol: "XX"',
      ],
      ['{"attributes": {"request": {"http": {"method": "a"', "unexpected EOF"],
      ['{"attributes": {"request": {"http": {"method": tru}}}}', "syntax error (line 1:48): invalid value tru"],
      ['{"a":1}{"b":2}', '(line 1:2): unknown field "a"'],
      ['{\n  "attributes": {\n    "nope": 1}}', '(line 3:5): unknown field "nope"'],
    ];
    for (const [text, want] of cases) assert.equal(error(text), `proto: ${want}`, text);
  });

  test("accepts what protojson accepts: both names, nulls, integers as strings, enum names and numbers", () => {
    for (const text of [
      '{"attributes": {"request": {"http": {"size": "12", "method": null}}}}',
      '{"attributes": {"request": {"http": {"size": 1e2}}}}',
      '{"attributes": {"source": {"address": {"socket_address": {"protocol": "UDP", "portValue": 8080}}}}}',
      '{"attributes": {"source": {"address": {"socketAddress": {"protocol": 1}}}}}',
      '{"attributes": {"request": {"time": "2024-01-01T00:00:00.123456789+01:00"}}}',
      '{"attributes": {"request": {"http": {"raw_body": "a-_k"}}}}',
    ])
      assert.equal(error(text), "decoded", text);
  });
});
