/** Each webhook group's paths serve its policies under the deadline of its own timeout. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import { admissionBatchRoutes, admissionRoutes } from "./start-servers.js";

const needsApp = (name: string, spec: JsonObject): JsonObject =>
  clusterPolicy(
    name,
    [
      {
        name: "app",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { message: "label app is required", pattern: { metadata: { labels: { app: "?*" } } } },
      },
    ],
    { validationFailureAction: "Enforce", ...spec },
  );

function answer(result: unknown): { allowed: boolean; message: string } {
  const r = result as { status: number; body: { response: { allowed: boolean; status?: { message: string } } } };
  assert.equal(r.status, 200);
  return { allowed: r.body.response.allowed, message: r.body.response.status?.message ?? "" };
}

describe("admission routes", () => {
  const groups = { defaultSeconds: 10, extra: [20] };

  test("fail and ignore paths for the default group and each further one, validate and mutate", () => {
    const { deps } = fakeDeps();
    const paths = [...admissionRoutes(deps, groups).keys()].sort();
    assert.deepEqual(paths, [
      "/mutate",
      "/mutate/fail",
      "/mutate/fail/timeout-20s",
      "/mutate/ignore",
      "/mutate/ignore/timeout-20s",
      "/policymutate",
      "/policyvalidate",
      "/validate",
      "/validate/fail",
      "/validate/fail/timeout-20s",
      "/validate/ignore",
      "/validate/ignore/timeout-20s",
    ]);
    assert.deepEqual([...admissionBatchRoutes(deps, groups).keys()].sort(), [
      "/validate",
      "/validate/fail",
      "/validate/fail/timeout-20s",
      "/validate/ignore",
      "/validate/ignore/timeout-20s",
    ]);
  });

  test("each path serves only its group's policies", () => {
    const { deps } = fakeDeps({
      policies: [
        needsApp("ten", {}),
        needsApp("twenty", { webhookTimeoutSeconds: 20 }),
        needsApp("lenient", { failurePolicy: "Ignore" }),
      ],
    });
    const routes = admissionRoutes(deps, groups);
    const body = reviewOf(pod({ name: "web" }));
    const denied = (path: string): string => answer(routes.get(path)?.(body)).message;
    assert.match(denied("/validate/fail"), /\nten:\n/);
    assert.doesNotMatch(denied("/validate/fail"), /twenty|lenient/);
    assert.match(denied("/validate/fail/timeout-20s"), /\ntwenty:\n/);
    assert.doesNotMatch(denied("/validate/fail/timeout-20s"), /\nten:|lenient/);
    assert.match(denied("/validate/ignore"), /\nlenient:\n/);
    assert.equal(answer(routes.get("/validate/ignore/timeout-20s")?.(body)).allowed, true, "no policy in that group");
  });

  test("a review gets 80% of the timeout of the path it came in on", () => {
    // The fake clock moves 9 s per reading: the first policy would start 9 s in, the second 18 s in.
    // The 10 s group's deadline is 8 s, the 20 s group's 16 s; the Fail policies left out deny.
    const slow = [needsApp("first", { webhookTimeoutSeconds: 20 }), needsApp("second", { webhookTimeoutSeconds: 20 })];
    const labelled = reviewOf(pod({ name: "web", labels: { app: "web" } }));
    const { deps } = fakeDeps({ policies: slow, clockStep: 9, deadlineSeconds: 8 });
    assert.match(
      answer(admissionRoutes(deps, groups).get("/validate/fail/timeout-20s")?.(labelled)).message,
      /exceeded its deadline of 16s before evaluating 1 policy/,
    );
    const quick = fakeDeps({
      policies: [needsApp("first", { webhookTimeoutSeconds: 20 })],
      clockStep: 9,
      deadlineSeconds: 8,
    });
    assert.equal(
      answer(admissionRoutes(quick.deps, groups).get("/validate/fail/timeout-20s")?.(labelled)).allowed,
      true,
      "9 s in is within the 20 s group's 16 s",
    );
    const tens = fakeDeps({ policies: [needsApp("a", {}), needsApp("b", {})], clockStep: 9, deadlineSeconds: 8 });
    assert.match(
      answer(admissionRoutes(tens.deps, groups).get("/validate/fail")?.(labelled)).message,
      /exceeded its deadline of 8s before evaluating 2 policies/,
    );
  });

  test("with fine-grained webhooks (--register): a policy with matchConditions is served on its own path only, under its own timeout", () => {
    const scoped = needsApp("scoped", {
      webhookConfiguration: {
        timeoutSeconds: 20,
        matchConditions: [{ name: "not-system", expression: "object.metadata.namespace != 'kube-system'" }],
      },
    });
    const { deps } = fakeDeps({ policies: [needsApp("shared", {}), scoped] });
    const routes = admissionRoutes(deps, { ...groups, fineGrained: true });
    const body = reviewOf(pod({ name: "web" }));
    assert.doesNotMatch(
      answer(routes.get("/validate/fail")?.(body)).message,
      /scoped/,
      "left out of the shared webhook",
    );
    assert.match(answer(routes.get("/validate/fail")?.(body)).message, /\nshared:\n/);
    const own = answer(routes.get("/validate/fail/finegrained/scoped")?.(body)).message;
    assert.match(own, /\nscoped:\n/);
    assert.doesNotMatch(own, /shared/);
    assert.equal(
      answer(
        routes.get("/validate/fail/finegrained/scoped")?.(reviewOf(pod({ name: "web", namespace: "kube-system" }))),
      ).allowed,
      true,
      "its conditions exclude kube-system",
    );
    assert.equal(
      answer(routes.get("/validate/fail/finegrained/gone")?.(body)).allowed,
      true,
      "a policy no longer loaded: nothing to evaluate",
    );
    assert.equal(routes.has("/validate/fail/finegrained/ns/name"), true);
    assert.equal(routes.get("/validate/fail/finegrained/Bad_Name"), undefined);
    assert.equal(
      admissionRoutes(deps, groups).get("/validate/fail/finegrained/scoped"),
      undefined,
      "not served without --register",
    );
  });

  test("with fine-grained webhooks (--register): a ValidatingPolicy with its own webhook is decided on /vpol/…/finegrained/<name> alone, never on the shared path", () => {
    const vpol = (name: string, spec: JsonObject): JsonObject => ({
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        },
        validations: [
          {
            expression: "has(object.metadata.labels) && 'app' in object.metadata.labels",
            message: `${name}: label app is required`,
          },
        ],
        ...spec,
      },
    });
    const compile: NonNullable<Parameters<typeof fakeDeps>[0]>["compile"] = (doc, engine) => {
      if (doc["kind"] === "ClusterPolicy") {
        const r = engine.compile(doc);
        return r.ok ? r.policy : assert.fail("does not compile");
      }
      return compileCelPolicy(doc, engine).policy ?? assert.fail("does not compile");
    };
    const timed = vpol("timed", { webhookConfiguration: { timeoutSeconds: 20 } });
    // A kyverno.io ClusterPolicy of the same name keeps its own path: the kind's prefix tells them apart.
    const namesake = needsApp("timed", {
      webhookConfiguration: { matchConditions: [{ name: "all", expression: "true" }] },
    });
    const { deps } = fakeDeps({ policies: [vpol("plain", {}), timed, namesake], compile });
    const routes = admissionRoutes(deps, { ...groups, fineGrained: true });
    const body = reviewOf(pod({ name: "web" }));
    const shared = answer(routes.get("/validate/fail")?.(body)).message;
    assert.match(shared, /plain: label app is required/);
    assert.doesNotMatch(shared, /timed/, "left out of the shared webhook");
    const own = answer(routes.get("/vpol/fail/finegrained/timed")?.(body));
    assert.equal(own.allowed, false);
    assert.match(own.message, /timed: label app is required/);
    assert.doesNotMatch(own.message, /plain/);
    const kyvernoOwn = answer(routes.get("/validate/fail/finegrained/timed")?.(body)).message;
    assert.match(kyvernoOwn, /label app is required/);
    assert.doesNotMatch(
      kyvernoOwn,
      /timed: label app/,
      "the ClusterPolicy's path serves the ClusterPolicy, not the ValidatingPolicy of the same name",
    );
    assert.equal(routes.has("/nvpol/ignore/finegrained/team-a/name"), true);
    assert.equal(routes.get("/xpol/fail/finegrained/timed"), undefined);
    assert.match(
      answer(admissionRoutes(deps, groups).get("/validate/fail/timeout-20s")?.(body)).message,
      /timed: label app is required/,
      "without --register its timeout group's shared path serves it",
    );
  });

  test("without fine-grained webhooks the shared path serves a policy with matchConditions too (they are evaluated by the engine)", () => {
    const scoped = needsApp("scoped", {
      webhookConfiguration: {
        matchConditions: [{ name: "not-system", expression: "object.metadata.namespace != 'kube-system'" }],
      },
    });
    const { deps } = fakeDeps({ policies: [scoped] });
    const routes = admissionRoutes(deps, groups);
    assert.match(answer(routes.get("/validate/fail")?.(reviewOf(pod({ name: "web" })))).message, /\nscoped:\n/);
    assert.equal(
      answer(routes.get("/validate/fail")?.(reviewOf(pod({ name: "web", namespace: "kube-system" })))).allowed,
      true,
    );
  });

  test("a condition that cannot be evaluated is answered under the policy's failurePolicy, as the API server answers it: Fail denies naming it, Ignore admits", () => {
    const erroring = {
      matchConditions: [{ name: "reads-missing", expression: "object.metadata.labels.missing == 'x'" }],
    };
    const fail = fakeDeps({
      policies: [needsApp("strict", { webhookConfiguration: { failurePolicy: "Fail", ...erroring } })],
    });
    const denied = answer(
      admissionRoutes(fail.deps, { ...groups, fineGrained: true }).get("/validate/fail/finegrained/strict")?.(
        reviewOf(pod({ name: "web", labels: { app: "web" } })),
      ),
    );
    assert.equal(denied.allowed, false);
    assert.match(denied.message, /reads-missing/);
    const ignore = fakeDeps({
      policies: [needsApp("lenient", { webhookConfiguration: { failurePolicy: "Ignore", ...erroring } })],
    });
    assert.equal(
      answer(
        admissionRoutes(ignore.deps, { ...groups, fineGrained: true }).get("/validate/ignore/finegrained/lenient")?.(
          reviewOf(pod({ name: "web", labels: { app: "web" } })),
        ),
      ).allowed,
      true,
    );
  });
});
