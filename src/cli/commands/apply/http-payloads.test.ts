/**
 * `bylaw apply --http-payload FILE`: the HTTP-mode ValidatingPolicies on each HTTP request, with
 * kyverno apply's text and exit code (each case checked beside `kyverno apply POLICY --http-payload
 * FILE`, Kyverno 1.19.0: the same stdout).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policies = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: http-check}
spec:
  evaluation: {mode: HTTP}
  variables: [{name: auth, expression: 'object.attributes.Header("authorization")'}]
  validations:
    - expression: 'size(variables.auth) == 0 ? http.Denied("missing auth").Response() : null'
    - expression: http.Allowed().Response()
---
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: only-post}
spec:
  evaluation: {mode: HTTP}
  matchConditions: [{name: post, expression: 'object.attributes.method == "POST"'}]
  validations:
    - expression: 'object.attributes.host == "ok.example" ? http.Allowed().Response() : http.Denied("bad host " + object.attributes.host).Response()'
`;
const files = {
  "p.yaml": policies,
  "allow.json": JSON.stringify({
    attributes: { method: "GET", header: { Authorization: ["Bearer x"] }, host: "ok.example" },
  }),
  "deny.json": JSON.stringify({ attributes: { method: "POST", header: {}, host: "bad.example" } }),
  // A lower-case header name: Header("authorization") looks up "Authorization", as Go's textproto does.
  "lower.json": JSON.stringify({ attributes: { method: "GET", header: { authorization: ["x"] } } }),
  "bad.json": JSON.stringify({ attributes: { contentLength: "x" } }),
  "runtime-error.yaml": `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: runtime-err}
spec:
  evaluation: {mode: HTTP}
  validations:
    - expression: 'object.attributes.header["X-Missing"][0] == "a" ? http.Allowed().Response() : null'
`,
};

async function apply(args: string[]) {
  const dir = tempTree(files);
  const io = recordingIo("");
  const code = await main(["apply", ...args.map((a) => a.replaceAll("$DIR", dir))], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("bylaw apply --http-payload", () => {
  test("an allowed request passes, one no policy matches is a skip; HTTP payloads are not counted as resources", async () => {
    const { code, out } = await apply(["$DIR/p.yaml", "--http-payload", "$DIR/allow.json"]);
    assert.equal(code, 0);
    assert.equal(
      out,
      "\nApplying 2 policy rule(s) to 0 resource(s)...\n\npass: 1, fail: 0, warn: 0, error: 0, skip: 1 ",
    );
  });

  test("a denied request fails with the reason, per policy (exit 1)", async () => {
    const { code, out } = await apply(["$DIR/p.yaml", "--http-payload", "$DIR/deny.json,$DIR/lower.json"]);
    assert.equal(code, 1);
    assert.equal(
      out,
      [
        "",
        "Applying 2 policy rule(s) to 0 resource(s)...",
        "policy http-check -> resource JSON payload failed:",
        "1 - http-check request denied, reason: missing auth",
        "policy only-post -> resource JSON payload failed:",
        "1 - only-post request denied, reason: bad host bad.example",
        "policy http-check -> resource JSON payload failed:",
        "1 - http-check request denied, reason: missing auth",
        "",
        "pass: 0, fail: 3, warn: 0, error: 0, skip: 1 ",
      ].join("\n"),
    );
  });

  test("an evaluation error is an error result, its reason on stderr", async () => {
    const { code, out, err } = await apply(["$DIR/runtime-error.yaml", "--http-payload", "$DIR/allow.json"]);
    assert.equal(code, 1);
    assert.match(out, /pass: 0, fail: 0, warn: 0, error: 1, skip: 0/);
    assert.match(err, /runtime-err no such key: X-Missing/);
  });

  test("a payload that is not a request is an error naming the file (exit 2)", async () => {
    const { code, err } = await apply(["$DIR/p.yaml", "--http-payload", "$DIR/bad.json"]);
    assert.equal(code, 2);
    assert.match(
      err,
      /failed to parse HTTP payload from .*bad\.json: json: cannot unmarshal string into Go struct field CheckRequestAttributes\.attributes\.contentLength of type int64/,
    );
    const missing = await apply(["$DIR/p.yaml", "--http-payload", "$DIR/missing.json"]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /failed to parse HTTP payload from .*missing\.json: failed to read HTTP payload file/);
  });

  test("Bylaw's own formats name a request's results by its file", async () => {
    const { out } = await apply(["$DIR/p.yaml", "--http-payload", "$DIR/deny.json", "-o", "json"]);
    const results = (JSON.parse(out) as { results: { policy: string; resource: string; result: string }[] }).results;
    assert.deepEqual(
      results.map((r) => [r.policy, r.resource.replace(/ .*\//, " "), r.result]),
      [
        ["http-check", "HTTP deny.json", "fail"],
        ["only-post", "HTTP deny.json", "fail"],
      ],
    );
  });

  test("HTTP-mode policies never run on resources", async () => {
    const pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: c, image: web:1}]}\n";
    const dir = tempTree({ ...files, "pod.yaml": pod });
    const io = recordingIo("");
    const code = await main(["apply", `${dir}/p.yaml`, "-r", `${dir}/pod.yaml`], io);
    assert.equal(code, 0);
    assert.match(io.stdout.join("\n"), /pass: 0, fail: 0, warn: 0, error: 0, skip: 0/);
  });
});
