/** Kyverno's CEL libraries in the policies.kyverno.io environment: names, overloads and results as the SDK documents them. */
import { gzipSync } from "node:zlib";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../api/json.js";
import { err, ok } from "../../api/result.js";
import type { ApiCallRequest, ContextSources, EnginePorts } from "../../ports.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { createCel } from "../create-cel.js";
import { activation } from "../../../../test/support/cel-run.js";
import { fromCel } from "../values.js";
import type { CelEngine } from "../types.js";
import type { CelServices } from "./services.js";
import { DOCS_CERT, EC_CERT } from "../../../../test/support/x509-pems.js";
import { textOf } from "../../api/json.js";

const cm = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "regs", namespace: "default" },
  data: { registries: "ghcr.io" },
};

function ports(context: Partial<ContextSources> = {}): EnginePorts {
  const base = fakePorts();
  return {
    ...base,
    context: {
      ...base.context,
      getResource: (r) =>
        r.name === "regs" && r.namespace === "default"
          ? ok(cm)
          : err("not-found", `${r.resource} "${r.name}" not found`),
      listResources: (r) => ok({ items: r.namespace === "default" ? [cm] : [] }),
      globalReference: (name) =>
        name === "gce" ? ok({ a: 1, list: [1, 2] }) : err("unavailable", `global context entry ${name}: not given`),
      imageData: (ref) =>
        ref === "busybox:1.35"
          ? ok({ config: { Volumes: { "/data": {} }, created: "2020-01-01T00:00:00Z" } })
          : err("unavailable", `image data for ${ref} not found in the context`),
      apiCall: (req) =>
        req.serviceUrl === "http://svc/ok"
          ? ok({
              form: req.form ?? "apiCall",
              method: req.method,
              body: req.data ?? null,
              headers: (req.headers ?? []).map((h) => ({ key: h.key, value: h.value })),
              ...(req.caBundle !== undefined ? { caBundle: req.caBundle } : {}),
            })
          : err("unavailable", `HTTP call ${req.serviceUrl ?? ""}: no mock`),
      ...context,
    },
  };
}

const cluster = createCel({ kyverno: "cluster" });
const namespaced = createCel({ kyverno: "namespaced" });

/** `services` null: an evaluation given no ports. */
function evaluate(
  expression: string,
  services: CelServices | null = { ports: ports(), policyNamespace: "" },
  cel: CelEngine = cluster,
): JsonValue {
  const c = cel.compile(expression);
  if (!c.ok) return `compile: ${c.error.message.split("\n")[0] ?? ""}`;
  const r = c.value.evaluate(activation({}), undefined, services ?? undefined);
  return r.ok ? fromCel(r.value) : `eval: ${r.error.message}`;
}

describe("Kyverno CEL libraries", () => {
  test("resource.Get/List (and get/list) read through the port; a missing object is Kyverno's error", () => {
    assert.equal(evaluate('resource.Get("v1", "configmaps", "default", "regs").data.registries'), "ghcr.io");
    assert.equal(evaluate('resource.get("v1", "configmaps", "default", "regs").data.registries'), "ghcr.io");
    assert.equal(evaluate('resource.List("v1", "configmaps", "default").items.size()'), 1);
    assert.equal(evaluate('resource.list("v1", "configmaps", "default", {"team": "x"}).items.size()'), 1);
    assert.equal(
      evaluate('resource.Get("v1", "configmaps", "default", "nope")'),
      'eval: failed to get resource: configmaps "nope" not found',
    );
  });

  test("a NamespacedValidatingPolicy's resource.Get/List name no namespace: they read the policy's", () => {
    const s: CelServices = { ports: ports(), policyNamespace: "default" };
    assert.equal(evaluate('resource.Get("v1", "configmaps", "regs").data.registries', s, namespaced), "ghcr.io");
    assert.equal(evaluate('resource.List("v1", "configmaps").items.size()', s, namespaced), 1);
    assert.match(textOf(evaluate('resource.Get("v1", "configmaps", "default", "regs")', s, namespaced)), /^compile: /);
  });

  test("a port that reads no objects, or an evaluation without ports, is an error naming the call", () => {
    const withoutReads: ContextSources = { ...ports().context };
    delete withoutReads.getResource;
    const noObjects: EnginePorts = { ...ports(), context: withoutReads };
    assert.match(
      textOf(
        evaluate('resource.Get("v1", "configmaps", "default", "regs")', { ports: noObjects, policyNamespace: "" }),
      ),
      /^eval: failed to get resource: resource.Get\("v1", "configmaps", "default", "regs"\) needs objects/,
    );
    assert.equal(
      evaluate("time.now()", null),
      "eval: time.now: not available here (no engine ports for this evaluation)",
    );
  });

  test("resource.Post creates through the apiCall port: a POST to the collection path with the object as data; unanswered, an error", () => {
    const asked: ApiCallRequest[] = [];
    const sar = ports({
      apiCall: (req) => {
        asked.push(req);
        return req.urlPath === "/apis/authorization.k8s.io/v1/subjectaccessreviews"
          ? ok({ kind: "SubjectAccessReview", status: { allowed: true } })
          : err("unavailable", `apiCall ${req.urlPath ?? ""}: no mock`);
      },
    });
    const review =
      '{"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {"user": "alice", "resourceAttributes": {"verb": "delete", "resource": "pods"}}}';
    assert.equal(
      evaluate(`resource.Post("authorization.k8s.io/v1", "subjectaccessreviews", ${review}).status.allowed`, {
        ports: sar,
        policyNamespace: "",
      }),
      true,
    );
    assert.deepEqual(asked[0], {
      urlPath: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      method: "POST",
      data: [
        { key: "apiVersion", value: "authorization.k8s.io/v1" },
        { key: "kind", value: "SubjectAccessReview" },
        { key: "spec", value: { user: "alice", resourceAttributes: { verb: "delete", resource: "pods" } } },
      ],
    });
    assert.equal(
      evaluate('resource.post("v1", "configmaps", "shop", {"metadata": {"name": "x"}})', {
        ports: sar,
        policyNamespace: "",
      }),
      "eval: failed to create resource: apiCall /api/v1/namespaces/shop/configmaps: no mock",
    );
    // A NamespacedValidatingPolicy names no namespace: it posts into its own.
    assert.equal(
      evaluate(
        'resource.Post("v1", "configmaps", {"metadata": {"name": "x"}})',
        { ports: sar, policyNamespace: "tenant-a" },
        namespaced,
      ),
      "eval: failed to create resource: apiCall /api/v1/namespaces/tenant-a/configmaps: no mock",
    );
  });

  test("globalContext.Get with and without a projection", () => {
    assert.deepEqual(evaluate('globalContext.Get("gce")'), { a: 1, list: [1, 2] });
    assert.equal(evaluate('globalContext.get("gce", "a")'), 1);
    assert.equal(
      evaluate('globalContext.Get("gce", "zz")'),
      'eval: failed to get global reference: projection "zz" not found in global context entry "gce"',
    );
    assert.equal(
      evaluate('globalContext.Get("missing")'),
      "eval: failed to get global reference: global context entry missing: not given",
    );
  });

  test("tenant-isolation rule 3: globalContext.Get tells the port whose expression asks, so a namespaced one is refused", () => {
    const askers: string[] = [];
    const refusing = ports({
      globalReference: (_name, caller) => {
        askers.push(caller?.policyNamespace ?? "<none>");
        return caller?.policyNamespace
          ? err("refused", `a namespaced Policy (namespace "${caller.policyNamespace}") may not read a globalReference`)
          : ok({ a: 1 });
      },
    });
    assert.deepEqual(evaluate('globalContext.Get("gce")', { ports: refusing, policyNamespace: "" }), { a: 1 });
    assert.equal(
      evaluate('globalContext.Get("gce", "a")', { ports: refusing, policyNamespace: "tenant-a" }, namespaced),
      'eval: failed to get global reference: a namespaced Policy (namespace "tenant-a") may not read a globalReference',
    );
    // A namespaced exception's conditions run with a cluster-wide policy's services: the exception's namespace asks.
    assert.match(
      textOf(
        evaluate('[globalContext][0].get("gce")', {
          ports: refusing,
          policyNamespace: "",
          authorNamespace: "tenant-b",
        }),
      ),
      /namespace "tenant-b"\) may not read/,
    );
    assert.deepEqual(askers, ["", "tenant-a", "tenant-b"]);
  });

  test("http.Get/Post go through the apiCall port with the URL, body and headers; no answer is an error", () => {
    assert.deepEqual(evaluate('http.Get("http://svc/ok")'), { form: "http", method: "GET", body: null, headers: [] });
    assert.deepEqual(evaluate('http.post("http://svc/ok", {"x": 1}, {"Authorization": "t"})'), {
      form: "http",
      method: "POST",
      body: { x: 1 },
      headers: [{ key: "Authorization", value: "t" }],
    });
    assert.equal(evaluate('http.Get("http://svc/other")'), "eval: request failed: HTTP call http://svc/other: no mock");
  });

  // kyverno/sdk extensions/cel/libs/http: Client(caBundle) (and client since 1.18) returns an http context whose Get/Post use that CA.
  test("http.Client(caBundle) compiles and its Get/Post go through the same port, carrying the CA bundle", () => {
    const ca = "-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----";
    assert.deepEqual(evaluate(`http.Client("${ca}").Get("http://svc/ok")`), {
      form: "http",
      method: "GET",
      body: null,
      headers: [],
      caBundle: ca.replaceAll("\\n", "\n"),
    });
    assert.deepEqual(evaluate(`http.client("${ca}").post("http://svc/ok", {"a": "b"}, {"X": "1"})`), {
      form: "http",
      method: "POST",
      body: { a: "b" },
      headers: [{ key: "X", value: "1" }],
      caBundle: ca.replaceAll("\\n", "\n"),
    });
    assert.equal(
      evaluate(`http.Client("${ca}").Get("http://svc/other")`),
      "eval: request failed: HTTP call http://svc/other: no mock",
    );
    // The default client sends no bundle.
    assert.equal((evaluate('http.Get("http://svc/ok")') as Record<string, unknown>)["caBundle"], undefined);
  });

  test("image.GetMetadata answers from the port; has() works on its result", () => {
    assert.equal(evaluate('has(image.GetMetadata("busybox:1.35").config.Volumes)'), true);
    assert.equal(evaluate('has(image.getMetadata("busybox:1.35").config.User)'), false);
    assert.equal(
      evaluate('image.GetMetadata("nginx").config'),
      "eval: failed to get image data: image data for nginx not found in the context",
    );
  });

  test("image references parse as go-containerregistry does", () => {
    assert.deepEqual(
      evaluate(
        '[image("busybox").registry(), image("busybox").repository(), image("busybox").tag(), image("busybox").identifier()]',
      ),
      ["index.docker.io", "library/busybox", "latest", "latest"],
    );
    assert.deepEqual(
      evaluate(
        '[parseImageReference("docker.io/nginx:1.25").registry(), parseImageReference("ghcr.io/org/app:v1").repository(), parseImageReference("localhost:5000/app").registry()]',
      ),
      ["index.docker.io", "org/app", "localhost:5000"],
    );
    const digest = `sha256:${"a".repeat(64)}`;
    assert.deepEqual(
      evaluate(
        `[image("ghcr.io/a/b:v1@${digest}").digest(), image("ghcr.io/a/b:v1@${digest}").tag(), string(image("ghcr.io/a/b@${digest}").containsDigest()), image("ghcr.io/a/b@${digest}").identifier()]`,
      ),
      [digest, "", "true", digest],
    );
    assert.deepEqual(evaluate('[isImage("nginx:1.25"), isImage("Nginx"), isImage("nginx@sha256:12")]'), [
      true,
      false,
      false,
    ]);
    assert.match(textOf(evaluate('image("UPPER/case").tag()')), /^eval: could not parse reference: UPPER\/case$/);
    assert.equal(evaluate('image("nginx") == image("docker.io/nginx:latest")'), true);
  });

  test("parseServiceAccount and user.parseServiceAccount split a service account user name", () => {
    assert.deepEqual(
      evaluate(
        '[parseServiceAccount("system:serviceaccount:ns1:builder").Namespace, parseServiceAccount("system:serviceaccount:ns1:builder").Name]',
      ),
      ["ns1", "builder"],
    );
    assert.deepEqual(
      evaluate('[user.parseServiceAccount("alice").Name, user.parseServiceAccount("alice").Namespace]'),
      ["", ""],
    );
  });

  test("time: now() from the clock port, truncate as Go's Time.Truncate, toCron", () => {
    assert.equal(evaluate("time.now()"), "2026-01-15T12:00:00Z");
    assert.equal(evaluate('time.truncate(timestamp("2026-01-15T12:34:56Z"), duration("1h"))'), "2026-01-15T12:00:00Z");
    assert.equal(evaluate('time.truncate(timestamp("2026-01-15T12:34:56Z"), duration("24h"))'), "2026-01-15T00:00:00Z");
    assert.equal(evaluate('time.toCron(timestamp("2026-01-15T12:34:56Z"))'), "34 12 15 1 4");
    assert.equal(evaluate('time.now() - duration("24h") < time.now()'), true);
  });

  test("hash (hex digests through the hasher port), random (through the random port), math.round", () => {
    assert.equal(evaluate('sha256("abc")'), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert.equal(evaluate('hash.sha1("abc")'), "a9993e364706816aba3e25717850c26c9cd0d89d");
    assert.equal(evaluate('md5("abc")'), "900150983cd24fb0d6963f7d28e17f72");
    assert.match(textOf(evaluate("random()")), /^[0-9a-z]{8}$/);
    assert.match(textOf(evaluate('random.random("[A-Z]{4}-[0-9]{2}")')), /^[A-Z]{4}-[0-9]{2}$/);
    assert.deepEqual(evaluate("[math.round(2.345, 2), math.round(-2.5, 0), math.round(1234.5, -2)]"), [2.35, -3, 1200]);
  });

  test("json and yaml decode as Go into any (numbers are doubles); json.marshal sorts keys", () => {
    assert.equal(evaluate('json.unmarshal("{\\"a\\": 1}").a == 1.0'), true);
    assert.equal(evaluate('json.unmarshal("{\\"a\\": 1}").a == 1'), true);
    assert.equal(evaluate('type(json.unmarshal("{\\"a\\": 1}").a) == double'), true);
    assert.equal(evaluate('json.marshal({"b": [1, "x"], "a": true})'), '{"a":true,"b":[1,"x"]}');
    assert.match(textOf(evaluate('json.unmarshal("{")')), /^eval: unexpected end of JSON input/);
    assert.deepEqual(evaluate('yaml.parse("a: 1\\nb: [x, z]")'), { a: 1, b: ["x", "z"] });
  });

  test("listObjToMap pairs two lists of objects by key and value field", () => {
    assert.deepEqual(evaluate('listObjToMap([{"name": "a"}, {"name": "b"}], [{"v": 1}, {"v": 2}], "name", "v")'), {
      a: 1,
      b: 2,
    });
    assert.match(
      textOf(evaluate('transform.listObjToMap([{"name": "a"}], [], "name", "v")')),
      /must take lists of equal length/,
    );
  });

  test("x509.decode gives the SDK's CertificateOutput fields of an RSA certificate; other input is Go's error", () => {
    const cert = evaluate(`x509.decode(${JSON.stringify(DOCS_CERT)})`) as Record<string, JsonValue>;
    assert.equal(typeof cert["Raw"], "string");
    assert.equal(cert["Subject"], undefined, "CertificateOutput has no Subject");
    assert.ok(cert["Issuer"] !== null && typeof cert["Issuer"] === "object");
    assert.equal(evaluate(`x509.decode(${JSON.stringify(DOCS_CERT)}).SerialNumber == 0.0`), true);
    assert.equal(evaluate('x509.decode("not pem")'), "eval: failed to decode PEM block");
    assert.equal(evaluate(`x509.decode(${JSON.stringify(EC_CERT)})`), "eval: certificate should use rsa algorithm");
  });

  test("gzip.decompress reads gzip bytes as a string", () => {
    const hello = "H4sIAAAAAAAAA8tIzcnJBwCGphA2BQAAAA==";
    assert.equal(evaluate(`gzip.decompress(base64.decode("${hello}"))`), "hello");
    assert.equal(evaluate('gzip.decompress(b"not gzip at all")'), "eval: gzip: invalid header");
  });

  test("gzip.decompress of a bomb is an evaluation error at 8 MiB, not the process's memory", () => {
    // 64 MiB of zeros, gzipped to about 64 KiB.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024)).toString("base64");
    assert.match(
      textOf(evaluate(`gzip.decompress(base64.decode("${bomb}"))`)),
      /^eval: the gzipped data is more than 8388608 bytes uncompressed/,
    );
  });

  test("what Bylaw does not provide is a compile error naming it", () => {
    for (const e of ['gzip.compress("x")', 'resource.ToGVR("v1", "Pod")']) {
      assert.match(
        textOf(evaluate(e)),
        /^compile: ERROR: <input>:1:\d+: (undeclared reference|found no matching overload)/,
        e,
      );
    }
  });

  test("validate.cel in a ClusterPolicy (Kubernetes' environment) has none of them", () => {
    const k8s = createCel();
    for (const e of [
      'resource.Get("v1", "configmaps", "default", "regs")',
      'image("busybox").registry()',
      "time.now()",
      'parseServiceAccount("x").Name',
    ]) {
      const c = k8s.compile(e);
      assert.ok(!c.ok, e);
    }
  });
});
