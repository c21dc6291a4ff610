/**
 * `bylaw apply --envoy-payload FILE`: the Envoy-mode ValidatingPolicies on each Envoy check, with
 * kyverno apply's text and exit code (each case checked beside `kyverno apply POLICY
 * --envoy-payload FILE`, Kyverno 1.19.0: the same stdout; a bad payload the same error text).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const files = {
  "p.yaml": `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: envoy-check}
spec:
  evaluation: {mode: Envoy}
  variables:
    - name: team
      expression: 'object.attributes.request.http.headers[?"x-team"].orValue("")'
  validations:
    - expression: 'variables.team == "" ? envoy.Denied(401).WithBody("no team").Response() : null'
    - expression: 'object.attributes.request.http.method == "DELETE" ? envoy.Denied(403).Response() : null'
    - expression: envoy.Allowed().WithHeader("x-checked", "yes").Response()
---
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: only-post}
spec:
  evaluation: {mode: Envoy}
  matchConditions: [{name: post, expression: 'object.attributes.request.http.method == "POST"'}]
  validations:
    - expression: 'object.attributes.request.http.host == "ok.example" ? envoy.Allowed().Response() : envoy.Denied(404).Response()'
`,
  "allow.json":
    '{"attributes": {"request": {"http": {"method": "GET", "headers": {"x-team": "a"}, "host": "ok.example"}}}}',
  "deny.json": '{"attributes": {"request": {"http": {"method": "POST", "headers": {}, "host": "bad.example"}}}}',
  // Proto field names (raw_body, context_extensions) are read as well as JSON ones.
  "snake.json":
    '{"attributes": {"context_extensions": {"a": "b"}, "request": {"http": {"method": "DELETE", "headers": {"x-team": "a"}, "raw_body": "aGk="}}}}',
  "unknown.json": '{"attributes": {"request": {"http": {"methodx": "GET"}}}}',
  "pod.yaml":
    "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: c, image: web:1}]}\n",
  "constrained.yaml": `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: envoy-mc}
spec:
  evaluation: {mode: Envoy}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
    - expression: envoy.Allowed().Response()
`,
};

async function apply(args: string[]) {
  const dir = tempTree(files);
  const io = recordingIo("");
  const code = await main(["apply", ...args.map((a) => a.replaceAll("$DIR", dir))], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("bylaw apply --envoy-payload", () => {
  test("an allowed check passes, one no policy matches is a skip; payloads are not counted as resources", async () => {
    const { code, out } = await apply(["$DIR/p.yaml", "--envoy-payload", "$DIR/allow.json"]);
    assert.equal(code, 0);
    assert.equal(
      out,
      "\nApplying 2 policy rule(s) to 0 resource(s)...\n\npass: 1, fail: 0, warn: 0, error: 0, skip: 1 ",
    );
  });

  test("a denied check fails with its HTTP status code, per policy (exit 1)", async () => {
    const { code, out } = await apply([
      "$DIR/p.yaml",
      "--envoy-payload",
      "$DIR/deny.json",
      "--envoy-payload",
      "$DIR/snake.json",
    ]);
    assert.equal(code, 1);
    assert.equal(
      out,
      [
        "",
        "Applying 2 policy rule(s) to 0 resource(s)...",
        "policy envoy-check -> resource JSON payload failed:",
        "1 - envoy-check request denied with status code 401",
        "policy only-post -> resource JSON payload failed:",
        "1 - only-post request denied with status code 404",
        "policy envoy-check -> resource JSON payload failed:",
        "1 - envoy-check request denied with status code 403",
        "",
        "pass: 0, fail: 3, warn: 0, error: 0, skip: 1 ",
      ].join("\n"),
    );
  });

  test("a payload that is not a CheckRequest is an error naming the file, in protojson's words (exit 2)", async () => {
    const { code, err } = await apply(["$DIR/p.yaml", "--envoy-payload", "$DIR/unknown.json"]);
    assert.equal(code, 2);
    assert.match(
      err,
      /failed to parse envoy payload from .*unknown\.json: proto:\u00a0\(line 1:38\): unknown field "methodx"/,
    );
    const missing = await apply(["$DIR/p.yaml", "--envoy-payload", "$DIR/missing.json"]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /failed to parse envoy payload from .*missing\.json: failed to read envoy payload file/);
  });

  test("Envoy-mode policies never run on resources, even with matchConstraints", async () => {
    const { code, out } = await apply(["$DIR/constrained.yaml", "-r", "$DIR/pod.yaml"]);
    assert.equal(code, 0);
    assert.match(out, /pass: 0, fail: 0, warn: 0, error: 0, skip: 0/);
  });

  test("Bylaw's own formats name the check's results 'Envoy FILE'", async () => {
    const { out } = await apply(["$DIR/p.yaml", "--envoy-payload", "$DIR/deny.json", "-o", "json"]);
    const results = (JSON.parse(out) as { results: { policy: string; resource: string; result: string }[] }).results;
    assert.deepEqual(
      results.map((r) => [r.policy, r.resource.replace(/ .*\//, " "), r.result]),
      [
        ["envoy-check", "Envoy deny.json", "fail"],
        ["only-post", "Envoy deny.json", "fail"],
      ],
    );
  });
});
