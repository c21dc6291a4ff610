/** Reviews handled as one batch get exactly the answers, and record exactly the results, they would alone. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, PolicyResponse } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { fakeDeps, reviewOf, type FakeSetup } from "../../../test/support/fake-admission-deps.js";
import type { HandlerResult } from "./types.js";
import { handleValidate, handleValidateBatch as batchAnswers } from "./validate-handler.js";

/** The batch's answers, all given at once (no review here is heavy enough to leave its batch). */
function handleValidateBatch(...args: Parameters<typeof batchAnswers>): HandlerResult[] {
  return batchAnswers(...args).map((a) => {
    assert.ok(!(a instanceof Promise), "a light review was answered off its batch");
    return a;
  });
}

const podRule = (name: string, validate: JsonObject): JsonObject => ({
  name,
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
  validate,
});
const needsLabel = (label: string, spec: JsonObject, name: string): JsonObject =>
  clusterPolicy(
    name,
    [
      podRule(`check-${label}`, {
        message: `label ${label} is required`,
        pattern: { metadata: { labels: { [label]: "?*" } } },
      }),
    ],
    spec,
  );

const setup: FakeSetup = {
  policies: [
    needsLabel("app", { validationFailureAction: "Enforce" }, "enforce-app"),
    needsLabel("team", { validationFailureAction: "Audit", emitWarning: true }, "warn-team"),
    needsLabel("tier", { validationFailureAction: "Audit" }, "audit-tier"),
    clusterPolicy(
      "deny-privileged",
      [
        podRule("no-privileged", {
          message: "privileged containers are not allowed",
          deny: {
            conditions: {
              any: [
                {
                  key: "{{ request.object.spec.containers[].securityContext.privileged }}",
                  operator: "AnyIn",
                  value: [true],
                },
              ],
            },
          },
        }),
      ],
      { validationFailureAction: "Enforce" },
    ),
  ],
};

const uid = (n: number): string => `00000000-0000-0000-0000-${String(n).padStart(12, "0")}`;
const privileged = (name: string, labels: Record<string, string>): JsonObject => {
  const p = pod({ name: name, labels });
  (p["spec"] as { containers: JsonObject[] }).containers[0] = {
    name: "c",
    image: "busybox",
    securityContext: { privileged: true },
  };
  return p;
};

/** Reviews of every kind of outcome: allowed, warned, denied by a pattern or a deny rule, DELETE, UPDATE, and bad bodies. */
function mixedBodies(): unknown[] {
  return [
    reviewOf(pod({ name: "ok", labels: { app: "a", team: "t", tier: "x" } }), { uid: uid(1) }),
    reviewOf(pod({ name: "no-app", labels: { team: "t" } }), { uid: uid(2) }),
    { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" },
    reviewOf(pod({ name: "warned", labels: { app: "a" } }), { uid: uid(4) }),
    "not a review",
    reviewOf(privileged("priv", { app: "a", team: "t" }), { uid: uid(6) }),
    reviewOf(null, {
      uid: uid(7),
      operation: "DELETE",
      name: "gone",
      namespace: "default",
      // Patterns give no result on DELETE (Kyverno); the deny rule reads the old object and denies.
      oldObject: privileged("gone", {}),
    }),
    reviewOf(pod({ name: "upd", labels: { team: "t" } }), {
      uid: uid(8),
      operation: "UPDATE",
      oldObject: pod({ name: "upd", labels: { team: "t" } }),
    }),
    reviewOf(
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "default" } },
      { uid: uid(9), resource: { group: "", version: "v1", resource: "configmaps" } },
    ),
  ];
}

describe("handleValidateBatch", () => {
  test("answers and recorded results equal those of each review handled alone, in order", () => {
    const bodies = mixedBodies();
    const alone = fakeDeps(setup);
    const expected = bodies.map((b) => handleValidate(b, alone.deps, "fail"));
    const together = fakeDeps(setup);
    const actual = handleValidateBatch(bodies, together.deps, "fail");
    // Audit results hold each engine's own compiled policies: compare them by name and rule results.
    const comparable = (a: HandlerResult) => ({
      status: a.status,
      body: a.body,
      audit:
        "auditResults" in a
          ? (a as unknown as { auditResults: PolicyResponse[] }).auditResults.map((r) => [r.policy.name, r.rules])
          : undefined,
    });
    assert.deepEqual(actual.map(comparable), expected.map(comparable));
    // Sanity: the mix really covers allowed, warned, denied and bad bodies.
    const shapes = actual.map((a) =>
      a.status === 400
        ? "400"
        : (a.body as { response: { allowed: boolean; warnings?: unknown } }).response.allowed
          ? (a.body as { response: { warnings?: unknown } }).response.warnings
            ? "warned"
            : "allowed"
          : "denied",
    );
    // (warn-team has emitWarning, so every Pod that is not denied is warned; nothing applies to the ConfigMap.)
    assert.deepEqual(shapes, ["warned", "denied", "400", "warned", "400", "denied", "denied", "warned", "allowed"]);
    // Per-result metrics: the same events, grouped by policy rather than by review.
    const key = (e: (typeof alone.results)[number]): string =>
      `${e.policy.name}/${e.rule}/${e.result}/${e.resourceNamespace}/${e.operation}`;
    assert.deepEqual(together.results.map(key).sort(), alone.results.map(key).sort());
    // One outcome per review; a batch records denials when it decides them, before the allowed ones.
    const outcome = (o: (typeof alone.admissions)[number]): string => `${o.uid} ${o.allowed} ${o.warnings}`;
    assert.deepEqual(together.admissions.map(outcome).sort(), alone.admissions.map(outcome).sort());
  });

  test("each policy runs over every review of the batch before the next policy", () => {
    const f = fakeDeps(setup);
    handleValidateBatch(
      [
        reviewOf(pod({ name: "a", labels: { app: "a" } }), { uid: uid(1) }),
        reviewOf(pod({ name: "b", labels: { app: "b" } }), { uid: uid(2) }),
      ],
      f.deps,
      "fail",
    );
    const enforceClass = f.results
      .filter((e) => e.policy.name === "enforce-app" || e.policy.name === "deny-privileged")
      .map((e) => `${e.policy.name}:${e.resourceNamespace}`);
    assert.deepEqual(enforceClass.slice(0, 4), [
      "enforce-app:default",
      "enforce-app:default",
      "deny-privileged:default",
      "deny-privileged:default",
    ]);
  });

  test("a failure while building one review answers that review per the webhook mode, and the others normally", () => {
    const f = fakeDeps(setup);
    const cluster = f.deps.cluster;
    const deps = {
      ...f.deps,
      cluster: {
        ...f.deps.cluster,
        roles: (user: Parameters<typeof cluster.roles>[0]) => {
          if (user.username === "mallory") throw new Error("role lookup failed");
          return cluster.roles(user);
        },
      },
    };
    const good = reviewOf(pod({ name: "ok", labels: { app: "a", team: "t" } }), { uid: uid(1) });
    const bad = reviewOf(pod({ name: "ok2", labels: { app: "a" } }), {
      uid: uid(2),
      userInfo: { username: "mallory", groups: [] },
    });
    const [first, second] = handleValidateBatch([good, bad], deps, "ignore");
    assert.deepEqual(first, {
      status: 200,
      body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: uid(1), allowed: true } },
      auditResults: (first as { auditResults: unknown }).auditResults,
    });
    assert.deepEqual(second, {
      status: 200,
      body: {
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: {
          uid: uid(2),
          allowed: true,
          warnings: ["bylaw: internal error while handling the validate request: role lookup failed"],
        },
      },
    });
  });

  test("a role lookup that is not ready yet (its watch still listing) is answered as not ready under the webhook's mode, not as a bug", () => {
    const f = fakeDeps(setup);
    const notReady = Object.assign(
      new Error(
        "request.roles cannot be computed: the rbac.authorization.k8s.io/v1/rolebindings cache has not synced yet",
      ),
      { name: "NotReady" },
    );
    const deps = {
      ...f.deps,
      cluster: {
        ...f.deps.cluster,
        roles: () => {
          throw notReady;
        },
      },
    };
    const review = reviewOf(pod({ name: "ok", labels: { app: "a", team: "t" } }), { uid: uid(3) });
    const [fail] = handleValidateBatch([review], deps, "fail");
    const response = (fail?.body as unknown as { response: { allowed: boolean; status?: { message?: string } } })
      .response;
    assert.equal(response.allowed, false);
    assert.equal(
      response.status?.message,
      "bylaw: not ready to decide the validate request: request.roles cannot be computed: the rbac.authorization.k8s.io/v1/rolebindings cache has not synced yet",
    );
    const [ignore] = handleValidateBatch([review], deps, "ignore");
    assert.deepEqual(
      (ignore?.body as unknown as { response: { allowed: boolean; warnings?: string[] } }).response.warnings,
      [
        "bylaw: not ready to decide the validate request: request.roles cannot be computed: the rbac.authorization.k8s.io/v1/rolebindings cache has not synced yet",
      ],
    );
  });

  test("a review whose policies read no roles is decided without asking for them, so roles still loading hold up only the reviews that need them", () => {
    const f = fakeDeps(setup);
    const notReady = Object.assign(
      new Error("request.roles cannot be computed: the rolebindings cache has not synced yet"),
      { name: "NotReady" },
    );
    const roles = (): never => {
      throw notReady;
    };
    const review = reviewOf(pod({ name: "ok", labels: { app: "a", team: "t" } }), { uid: uid(4) });
    const answer = (needs: boolean): { allowed: boolean; status?: { message?: string } } => {
      const deps = { ...f.deps, cluster: { ...f.deps.cluster, roles, needsRoles: () => needs } };
      const [a] = handleValidateBatch([review], deps, "fail");
      return (a?.body as unknown as { response: { allowed: boolean; status?: { message?: string } } }).response;
    };
    assert.equal(answer(false).allowed, true);
    const needed = answer(true);
    assert.equal(needed.allowed, false);
    assert.match(needed.status?.message ?? "", /^bylaw: not ready to decide the validate request/);
  });

  test("past the deadline, only the reviews whose own deadline passed leave policies out", () => {
    // Each clock reading moves 4 s; the deadline is 10 s. The reviews read their starts at 100 and
    // 104; the batch reads 108 before "first" (both run) and 112 before "second": review 1 has run
    // 12 s and leaves "second" out, review 2 has run 8 s and evaluates it.
    const two = [
      needsLabel("app", { validationFailureAction: "Enforce" }, "first"),
      needsLabel("app", { validationFailureAction: "Enforce" }, "second"),
    ];
    const f = fakeDeps({ policies: two, clockStep: 4, deadlineSeconds: 10 });
    const labelled = (n: number): JsonObject => reviewOf(pod({ name: `p${n}`, labels: { app: "a" } }), { uid: uid(n) });
    const [first, second] = handleValidateBatch([labelled(1), labelled(2)], f.deps, "fail").map(
      (a) => (a.body as { response: { allowed: boolean; status?: { message: string } } }).response,
    );
    assert.equal(first?.allowed, false);
    assert.match(
      first?.status?.message ?? "",
      /exceeded its deadline of 10s before evaluating 1 policy with failurePolicy Fail \(second\)/,
    );
    assert.equal(second?.allowed, true);
    assert.deepEqual(
      f.results.map((e) => e.policy.name),
      ["first", "first", "second"],
    );
  });

  test("a policy's time over the batch is shared evenly among the reviews it ran on", () => {
    // Readings: starts 100 and 102, then 104 before the policy and 106 after it: 2 s over 2 reviews.
    const f = fakeDeps({
      policies: [needsLabel("app", { validationFailureAction: "Enforce" }, "only")],
      clockStep: 2,
      deadlineSeconds: 100,
    });
    handleValidateBatch(
      [
        reviewOf(pod({ name: "a", labels: { app: "a" } }), { uid: uid(1) }),
        reviewOf(pod({ name: "b", labels: { app: "b" } }), { uid: uid(2) }),
      ],
      f.deps,
      "fail",
    );
    assert.deepEqual(
      f.results.map((e) => e.durationSeconds),
      [1, 1],
    );
  });

  test("between policies the runner answers its workers' waiting calls, and the time that takes is no policy's", () => {
    // Readings as above (2 s a reading); answering a worker's call takes one reading of its own.
    const f = fakeDeps({
      policies: [
        needsLabel("app", { validationFailureAction: "Enforce" }, "first"),
        needsLabel("team", { validationFailureAction: "Enforce" }, "second"),
      ],
      clockStep: 2,
      deadlineSeconds: 100,
    });
    let asked = 0;
    const runner = {
      run: () => Promise.reject(new Error("no review leaves this batch")),
      answerWaiting: () => {
        asked++;
        f.deps.now();
        return true;
      },
    };
    handleValidateBatch(
      [
        reviewOf(pod({ name: "a", labels: { app: "a", team: "t" } }), { uid: uid(1) }),
        reviewOf(pod({ name: "b", labels: { app: "b", team: "t" } }), { uid: uid(2) }),
      ],
      { ...f.deps, runner },
      "fail",
    );
    assert.equal(asked, 2, "once after each policy");
    assert.deepEqual(
      f.results.map((e) => `${e.policy.name}=${e.durationSeconds}`),
      ["first=1", "first=1", "second=1", "second=1"],
    );
  });
});

describe("the candidate index in the batch", () => {
  const policies = [
    needsLabel("team", { validationFailureAction: "Enforce" }, "pods-need-team"),
    needsLabel("owner", { validationFailureAction: "Audit" }, "pods-need-owner"),
    clusterPolicy(
      "configmaps-on-update",
      [
        {
          name: "no-data",
          match: { any: [{ resources: { kinds: ["ConfigMap"], operations: ["UPDATE"] } }] },
          validate: { message: "no data", deny: {} },
        },
      ],
      { validationFailureAction: "Enforce" },
    ),
  ];
  const configMap: JsonObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
  const bodies = [
    reviewOf(pod()),
    reviewOf(pod({ labels: { team: "a", owner: "b" } })),
    reviewOf(configMap),
    reviewOf(configMap, { operation: "UPDATE", oldObject: configMap }),
    reviewOf({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "default" } }),
  ];
  const run = (indexCandidates: boolean) => {
    const fake = fakeDeps({ policies });
    // What the API server gets (status and body as JSON) and the Audit results kept for reports.
    const answers = handleValidateBatch(bodies, { ...fake.deps, indexCandidates }).map((a) => ({
      status: a.status,
      body: JSON.stringify(a.body),
      audit: ("auditResults" in a ? (a.auditResults ?? []) : []).map(
        (r) => `${r.policy.name}: ${r.rules.map((x) => `${x.rule}=${x.status}`).join(",")}`,
      ),
    }));
    return {
      answers,
      results: fake.results.map((r) => `${r.policy.name}/${r.rule}=${r.result} on ${r.resourceKind} ${r.operation}`),
    };
  };
  test("answers and recorded results are the same with the index and without it", () => {
    const indexed = run(true);
    const unindexed = run(false);
    assert.deepEqual(indexed.answers, unindexed.answers);
    assert.deepEqual(indexed.results, unindexed.results);
    // The batch decided something: the unlabelled Pod and the ConfigMap update are denied.
    assert.deepEqual(
      indexed.answers.map((a) => (JSON.parse(a.body) as { response: { allowed: boolean } }).response.allowed),
      [false, true, true, false, true],
    );
    assert.ok(indexed.results.includes("configmaps-on-update/no-data=fail on ConfigMap UPDATE"));
  });
});
