/** `bylaw serve` end to end over real HTTPS on loopback: admission decisions, patches, metrics, health. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { applyPatch, type Operation } from "rfc6902";
import type { JsonObject } from "../../src/engine/index.js";
import { pod } from "../support/builders.js";
import { tempTree } from "../support/temp-dir.js";
import { podReview, review, serveAroundTests } from "./serve-harness.js";
import { policyFixture } from "../support/policy-fixtures.js";

const policies = {
  "require-team.yaml": policyFixture("require-team"),
  "no-latest.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-latest}
spec:
  validationFailureAction: Audit
  emitWarning: true
  rules:
    - name: tag
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: "use a pinned tag"
        pattern: {spec: {containers: [{image: "!*:latest"}]}}
`,
  "defaults.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: defaults}
spec:
  rules:
    - name: owner
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {labels: {+(owner): platform}}
          spec: {containers: [{(name): "*", imagePullPolicy: IfNotPresent}]}
`,
  "no-exec.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-exec}
spec:
  validationFailureAction: Enforce
  rules:
    - name: deny-exec
      match: {any: [{resources: {kinds: [Pod/exec]}}]}
      validate:
        message: "exec is not allowed in {{ request.namespace }}"
        deny: {}
`,
};

/** A Pod in namespace shop. */
const shopPod = (name: string, labels: Record<string, string>, image = "nginx:1.27"): JsonObject =>
  pod({ name, namespace: "shop", labels, image });
type Review = {
  response: {
    uid: string;
    allowed: boolean;
    status?: { message: string };
    patch?: string;
    patchType?: string;
    warnings?: string[];
  };
};

describe("bylaw serve over HTTPS", () => {
  const server = serveAroundTests(["--policies", tempTree(policies)]);

  test("readiness and liveness", async () => {
    assert.equal((await server().get("/health/liveness")).status, 200);
    assert.equal((await server().get("/health/readiness")).status, 200);
  });

  test("CREATE of a compliant Pod is allowed", async () => {
    const r = await server().post(
      "/validate/fail",
      podReview({
        namespace: "shop",
        name: "ok",
        object: shopPod("ok", { team: "a" }),
      }),
    );
    assert.equal(r.status, 200);
    assert.equal((r.json as Review).response.allowed, true);
    assert.equal((r.json as Review).response.uid, "u-1");
  });

  test("an Enforce failure is denied with Kyverno's message; Audit failures only warn", async () => {
    const r = await server().post(
      "/validate/fail",
      podReview({
        namespace: "shop",
        name: "bad",
        object: shopPod("bad", {}, "nginx:latest"),
      }),
    );
    const res = (r.json as Review).response;
    assert.equal(res.allowed, false);
    assert.equal(
      res.status?.message,
      "\n\nresource Pod/shop/bad was blocked due to the following policies \n\nrequire-team:\n  check-team: 'validation error: label team is required. rule check-team failed at\n    path /metadata/labels/team/'\n".replace(
        "at\n    path",
        "at path",
      ),
    );
    const audit = await server().post(
      "/validate/fail",
      podReview({
        namespace: "shop",
        name: "latest",
        object: shopPod("latest", { team: "a" }, "nginx:latest"),
      }),
    );
    const ares = (audit.json as Review).response;
    assert.equal(ares.allowed, true);
    assert.deepEqual(ares.warnings, [
      "policy no-latest.tag: validation error: use a pinned tag. rule tag failed at path /spec/containers/0/image/",
    ]);
  });

  test("UPDATE is judged on the object; DELETE does not match patterns against oldObject", async () => {
    const upd = await server().post(
      "/validate/fail",
      podReview({
        operation: "UPDATE",
        namespace: "shop",
        name: "x",
        object: shopPod("x", { team: "a" }),
        oldObject: shopPod("x", {}),
      }),
    );
    assert.equal((upd.json as Review).response.allowed, true);
    const del = await server().post(
      "/validate/fail",
      podReview({
        operation: "DELETE",
        namespace: "shop",
        name: "x",
        object: null,
        oldObject: shopPod("x", {}),
      }),
    );
    assert.equal(
      (del.json as Review).response.allowed,
      true,
      "a pattern rule gives no result on DELETE (Kyverno skips validation of the object being removed), though oldObject lacks the label",
    );
  });

  test("a subresource (pods/exec CONNECT) matches Pod/exec", async () => {
    const r = await server().post(
      "/validate/fail",
      review({
        kind: { group: "", version: "v1", kind: "PodExecOptions" },
        resource: { group: "", version: "v1", resource: "pods" },
        subResource: "exec",
        requestKind: { group: "", version: "v1", kind: "PodExecOptions" },
        operation: "CONNECT",
        namespace: "shop",
        name: "web",
        object: { apiVersion: "v1", kind: "PodExecOptions", command: ["sh"], container: "app" },
      }),
    );
    const res = (r.json as Review).response;
    assert.equal(res.allowed, false);
    assert.match(res.status?.message ?? "", /exec is not allowed in shop/);
  });

  test("dry-run requests get the same decision", async () => {
    const r = await server().post(
      "/validate/fail",
      podReview({
        namespace: "shop",
        name: "d",
        dryRun: true,
        object: shopPod("d", {}),
      }),
    );
    assert.equal((r.json as Review).response.allowed, false);
  });

  test("mutation answers a base64 JSON patch that a JSON Patch library applies onto the object", async () => {
    const object = shopPod("m", { team: "a" });
    const r = await server().post(
      "/mutate/fail",
      podReview({
        namespace: "shop",
        name: "m",
        object,
      }),
    );
    const res = (r.json as Review).response;
    assert.equal(res.allowed, true);
    assert.equal(res.patchType, "JSONPatch");
    const patch = JSON.parse(Buffer.from(res.patch ?? "", "base64").toString("utf8")) as Operation[];
    const copy = structuredClone(object) as Record<string, unknown>;
    assert.ok(applyPatch(copy, patch).every((e) => e === null));
    assert.deepEqual((copy["metadata"] as { labels: unknown }).labels, { team: "a", owner: "platform" });
    assert.equal(
      (copy["spec"] as { containers: { imagePullPolicy: string }[] }).containers[0]?.imagePullPolicy,
      "IfNotPresent",
    );
  });

  test("malformed bodies get 400 with a reason; the server keeps serving", async () => {
    assert.equal((await server().post("/validate/fail", "{not json")).status, 400);
    const wrong = await server().post(
      "/validate/fail",
      JSON.stringify({ apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", request: {} }),
    );
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /apiVersion/);
    assert.equal((await server().get("/health/liveness")).status, 200);
  });

  test("/policyvalidate rejects an invalid policy with its field path", async () => {
    const bad = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "x" },
      spec: { rules: [{ name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] } }] },
    };
    const r = await server().post(
      "/policyvalidate",
      review({
        kind: { group: "kyverno.io", version: "v1", kind: "ClusterPolicy" },
        operation: "CREATE",
        name: "x",
        object: bad,
      }),
    );
    const res = (r.json as Review).response;
    assert.equal(res.allowed, false);
    assert.match(res.status?.message ?? "", /spec\.rules\[0\]/);
  });

  test("/policyvalidate: a PolicyException created in the cluster is admitted with a warning that --policies never reads it; an invalid one is refused", async () => {
    const polex = {
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "tools", namespace: "ops" },
      spec: {
        exceptions: [{ policyName: "require-team", ruleNames: ["check-team"] }],
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
      },
    };
    const post = (object: unknown) =>
      server().post(
        "/policyvalidate",
        review({
          kind: { group: "kyverno.io", version: "v2", kind: "PolicyException" },
          operation: "CREATE",
          name: "tools",
          namespace: "ops",
          object,
        }),
      );
    const ok = ((await post(polex)).json as Review).response;
    assert.equal(ok.allowed, true);
    assert.match(
      ok.warnings?.[0] ?? "",
      /not read from the cluster: bylaw serve reads policies and PolicyExceptions from its --policies folder/,
    );
    const bad = (
      (
        await post({
          ...polex,
          spec: { ...polex.spec, match: { any: [{ resources: { kinds: ["Pod"] }, clusterRoles: ["admin"] }] } },
        })
      ).json as Review
    ).response;
    assert.equal(bad.allowed, false);
    assert.match(bad.status?.message ?? "", /^PolicyException tools: spec\.match\.any\[0\]\.clusterRoles: Forbidden/);
  });

  test("metrics carry Kyverno's names and labels", async () => {
    const text = await server().metrics();
    assert.match(text, /kyverno_admission_requests_total\{[^}]*resource_kind="Pod"[^}]*request_allowed="false"/);
    assert.match(text, /kyverno_policy_results_total\{[^}]*policy_name="require-team"[^}]*rule_result="fail"/);
    assert.match(text, /kyverno_policy_rule_info_total\{[^}]*policy_name="defaults"/);
    assert.match(text, /kyverno_admission_review_duration_seconds_bucket/);
  });
});
