/**
 * Reviews whose policies make network calls are evaluated in passes (review-calls-loop.ts, ADR 0012):
 * through the real handlers, engine and live-calls port, with the API server's POST faked by a
 * function that counts what it is sent.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../../engine/index.js";
import { fakeContext, fakePorts } from "../../../test/support/fake-ports.js";
import { postToApiServer, usesNetworkCalls } from "../../kube/live-calls.js";
import { CallScopes } from "../../kube/review-calls.js";
import { KubeError } from "../../kube/kube-client.js";
import { handleMutateBounded, handleValidateBatch } from "./index.js";
import type { ReviewCallsPort } from "./review-calls-loop.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import type { AdmissionReviewJson, HandlerResult } from "./types.js";

const SAR = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

function sarPolicy(extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "may-create-secrets" },
    spec: {
      validationFailureAction: "Enforce",
      background: false,
      rules: [
        {
          name: "check-sar",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          context: [
            {
              name: "allowed",
              apiCall: {
                urlPath: SAR,
                method: "POST",
                data: [
                  { key: "apiVersion", value: "authorization.k8s.io/v1" },
                  { key: "kind", value: "SubjectAccessReview" },
                  {
                    key: "spec",
                    value: {
                      user: "{{ request.userInfo.username }}",
                      resourceAttributes: { verb: "create", resource: "secrets", namespace: "{{ request.namespace }}" },
                    },
                  },
                ],
                jmesPath: "status.allowed",
                ...extra,
              },
            },
          ],
          validate: {
            message: "{{ request.userInfo.username }} may not create secrets",
            deny: { conditions: { any: [{ key: "{{ allowed }}", operator: "Equals", value: false }] } },
          },
        },
      ],
    },
  };
}

const pod: JsonObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "team" },
  spec: { containers: [{ name: "c", image: "nginx" }] },
};

function setUp(
  policies: JsonObject[],
  post: (path: string, body: JsonValue) => Promise<unknown>,
  options: { realClock?: boolean; deadlineSeconds?: number } = {},
) {
  const scopes = new CallScopes();
  const calls = { scopes, post, egress: { policy: undefined as never } };
  const ports = {
    ...fakePorts(),
    context: {
      ...fakeContext(),
      canLoad: () => true,
      apiCall: (req: Parameters<typeof postToApiServer>[2]) => postToApiServer(calls, req.urlPath ?? "", req),
    },
  };
  const fake = fakeDeps({ policies, ports, ...options });
  let begun = 0;
  const port: ReviewCallsPort = {
    usesCalls: (p) => usesNetworkCalls(p.document as unknown as JsonValue),
    begin: () => (begun++, scopes.begin()),
  };
  return { ...fake, deps: { ...fake.deps, calls: port }, begun: () => begun };
}

async function validate(
  deps: Parameters<typeof handleValidateBatch>[1],
  body: JsonObject,
): Promise<AdmissionReviewJson> {
  const [answer] = handleValidateBatch([body], deps);
  return (await (answer as HandlerResult | Promise<HandlerResult>)).body as AdmissionReviewJson;
}

describe("apiCall POST in admission, evaluated in passes", () => {
  it("POSTs the SubjectAccessReview once, as Kyverno builds it from data, and admits on its answer", async () => {
    const sent: [string, JsonValue][] = [];
    const t = setUp([sarPolicy()], async (path, body) => (sent.push([path, body]), { status: { allowed: true } }));
    const review = await validate(t.deps, reviewOf(pod));
    assert.equal(review.response?.allowed, true);
    assert.deepEqual(sent, [
      [
        SAR,
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: { user: "alice", resourceAttributes: { verb: "create", resource: "secrets", namespace: "team" } },
        },
      ],
    ]);
    // Only the final pass is recorded: one admission, one pass result, no "pending" error.
    assert.equal(t.admissions.length, 1);

    assert.deepEqual(
      t.results.map((r) => r.result),
      ["pass"],
    );
  });

  it("the review's recorded duration covers every pass and the call, not the last pass alone", async () => {
    const t = setUp([sarPolicy()], () => new Promise((r) => setTimeout(() => r({ status: { allowed: true } }), 40)), {
      realClock: true,
    });
    await validate(t.deps, reviewOf(pod));
    assert.equal(t.admissions.length, 1);
    assert.ok((t.admissions[0]?.durationSeconds ?? 0) >= 0.035, `duration ${t.admissions[0]?.durationSeconds}`);
  });

  it("denies on a SubjectAccessReview that does not allow", async () => {
    const t = setUp([sarPolicy()], async () => ({ status: { allowed: false } }));
    const review = await validate(t.deps, reviewOf(pod));
    assert.equal(review.response?.allowed, false);
    assert.match(review.response?.status?.message ?? "", /alice may not create secrets/);
  });

  it("a failed POST is a rule error with Kyverno's text, or the entry's default", async () => {
    const forbidden = async (): Promise<never> => {
      throw new KubeError(
        `subjectaccessreviews.authorization.k8s.io is forbidden: User "system:serviceaccount:bylaw:bylaw" cannot create resource`,
        403,
        "Forbidden",
      );
    };
    const t = setUp([sarPolicy()], forbidden);
    const review = await validate(t.deps, reviewOf(pod));
    assert.equal(review.response?.allowed, false);
    assert.match(
      review.response?.status?.message ?? "",
      /failed to POST resource with raw url: \/apis\/authorization\.k8s\.io\/v1\/subjectaccessreviews: permission denied: subjectaccessreviews/,
    );
    const withDefault = setUp([sarPolicy({ default: false })], forbidden);
    const denied = await validate(withDefault.deps, reviewOf(pod));
    assert.match(denied.response?.status?.message ?? "", /alice may not create secrets/);
  });

  it("a call that depends on another's answer takes one more pass; each call is made once", async () => {
    const policy = sarPolicy();
    const rule = ((policy["spec"] as JsonObject)["rules"] as JsonObject[])[0] as { context: JsonObject[] };
    rule.context = [
      {
        name: "who",
        apiCall: {
          urlPath: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
          method: "POST",
          data: [{ key: "kind", value: "SelfSubjectReview" }],
          jmesPath: "status.userInfo.username",
        },
      },
      ...rule.context.map(
        (e) => JSON.parse(JSON.stringify(e).replace("{{ request.userInfo.username }}", "{{ who }}")) as JsonObject,
      ),
    ];
    const sent: string[] = [];
    const t = setUp([policy], async (path, body) => {
      sent.push(`${path} ${JSON.stringify(body)}`);
      return path.endsWith("selfsubjectreviews")
        ? { status: { userInfo: { username: "bylaw-sa" } } }
        : { status: { allowed: true } };
    });
    const review = await validate(t.deps, reviewOf(pod));
    assert.equal(review.response?.allowed, true);
    assert.equal(sent.length, 2);
    assert.match(sent[1] ?? "", /"user":"bylaw-sa"/);
  });

  it("a call that never answers is a rule error within the review's deadline, under failurePolicy Fail", async () => {
    const t = setUp([sarPolicy()], () => new Promise(() => undefined), { realClock: true, deadlineSeconds: 0.4 });
    const t0 = performance.now();
    const review = await validate(t.deps, reviewOf(pod));
    assert.ok(performance.now() - t0 < 1000, "answered within the deadline");
    assert.equal(review.response?.allowed, false);
    assert.match(
      review.response?.status?.message ?? "",
      /failed to POST resource with raw url: \/apis\/authorization.k8s.io\/v1\/subjectaccessreviews: the call did not answer within the review/,
    );
  });

  it("the mutate webhook evaluates its policies in passes too", async () => {
    const policy: JsonObject = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "label-allowed" },
      spec: {
        rules: [
          {
            name: "label",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            context: [
              {
                name: "allowed",
                apiCall: {
                  urlPath: SAR,
                  method: "POST",
                  data: [{ key: "kind", value: "SubjectAccessReview" }],
                  jmesPath: "status.allowed",
                },
              },
            ],
            mutate: { patchStrategicMerge: { metadata: { labels: { "may-create": "{{ allowed }}" } } } },
          },
        ],
      },
    };
    let n = 0;
    const t = setUp([policy], async () => (n++, { status: { allowed: true } }));
    const answer = await handleMutateBounded(reviewOf(pod), t.deps);
    const patch = JSON.parse(
      Buffer.from(String((answer.body as AdmissionReviewJson).response?.patch ?? ""), "base64").toString("utf8"),
    ) as JsonObject[];
    assert.deepEqual(patch, [{ op: "add", path: "/metadata/labels", value: { "may-create": true } }]);
    assert.equal(n, 1);
  });

  it("webhooks whose policies make no network call keep the batch path (no record is begun)", async () => {
    const plain: JsonObject = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "plain" },
      spec: {
        validationFailureAction: "Enforce",
        rules: [
          {
            name: "r",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            validate: { message: "m", pattern: { metadata: { name: "?*" } } },
          },
        ],
      },
    };
    const t = setUp([plain], async () => ({}));
    const answers = handleValidateBatch([reviewOf(pod), reviewOf(pod)], t.deps);
    assert.ok(
      answers.every((a) => !(a instanceof Promise)),
      "answered at once, in the batch",
    );
    assert.equal(t.begun(), 0);
  });
});
