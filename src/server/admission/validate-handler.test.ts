/** The validating webhook: Kyverno's block decision, denial text, warnings and request semantics. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { handleValidate, type HandlerResult } from "./index.js";
import { fakeDeps, reviewOf, type FakeSetup } from "../../../test/support/fake-admission-deps.js";

const requireApp = (spec: JsonObject = {}, name = "require-labels"): JsonObject =>
  clusterPolicy(
    name,
    [
      {
        name: "check-for-labels",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { message: "label app is required", pattern: { metadata: { labels: { app: "?*" } } } },
      },
    ],
    spec,
  );
const enforce = { validationFailureAction: "Enforce" };
const labelled = pod({ name: "nginx", labels: { app: "web" } });
const unlabelled = pod({ name: "nginx", labels: { team: "a" } });
const BLOCKED =
  "\n\nresource Pod/default/nginx was blocked due to the following policies \n\nrequire-labels:\n  check-for-labels: 'validation error: label app is required. rule check-for-labels failed at path /metadata/labels/app/'\n";

function run(setup: FakeSetup, body: JsonObject, mode?: "fail" | "ignore") {
  const fake = fakeDeps(setup);
  const result = handleValidate(body, fake.deps, mode);
  return { ...fake, result, response: ok(result) };
}

function ok(r: HandlerResult) {
  assert.equal(r.status, 200);
  if (r.status !== 200) throw new Error("unreachable");
  assert.equal(r.body.apiVersion, "admission.k8s.io/v1");
  assert.equal(r.body.kind, "AdmissionReview");
  return r.body.response;
}

describe("validate: allow and deny", () => {
  test("CREATE that passes: allowed, nothing else", () => {
    const { response, admissions } = run({ policies: [requireApp(enforce)] }, reviewOf(labelled));
    assert.deepEqual(response, { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true });
    assert.equal(admissions.length, 1);
    assert.deepEqual(
      { ...admissions[0], durationSeconds: 0 },
      {
        uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
        webhook: "validate",
        kind: "Pod",
        namespace: "default",
        name: "nginx",
        operation: "CREATE",
        dryRun: false,
        allowed: true,
        durationSeconds: 0,
        warnings: 0,
      },
    );
  });
  test("an Enforce failure is denied with Kyverno's exact text", () => {
    const { response } = run({ policies: [requireApp(enforce)] }, reviewOf(unlabelled));
    assert.deepEqual(response, {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: false,
      status: { status: "Failure", message: BLOCKED },
    });
  });
  test("a cluster-scoped resource reads Kind//name", () => {
    const ns: JsonObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } };
    const policy = clusterPolicy(
      "require-owner",
      [
        {
          name: "owner",
          match: { any: [{ resources: { kinds: ["Namespace"] } }] },
          validate: { message: "owner label required", pattern: { metadata: { labels: { owner: "?*" } } } },
        },
      ],
      enforce,
    );
    const { response } = run(
      { policies: [policy] },
      reviewOf(ns, { resource: { group: "", version: "v1", resource: "namespaces" } }),
    );
    assert.equal(
      response.status?.message,
      "\n\nresource Namespace//team-a was blocked due to the following policies \n\nrequire-owner:\n  owner: 'validation error: owner label required. rule owner failed at path /metadata/labels/'\n",
    );
  });
  test("the denial names the failing Audit rules of a blocking policy too, and carries no warnings", () => {
    const policy = clusterPolicy(
      "mixed",
      [
        {
          name: "enforced",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { failureAction: "Enforce", message: "app", pattern: { metadata: { labels: { app: "?*" } } } },
        },
        {
          name: "audited",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { failureAction: "Audit", message: "tier", pattern: { metadata: { labels: { tier: "?*" } } } },
        },
      ],
      { emitWarning: true },
    );
    const { response } = run({ policies: [policy] }, reviewOf(unlabelled));
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /mixed:\n {2}audited: 'validation error: tier\. .*'\n {2}enforced: 'validation error: app\. .*'\n$/,
    );
    assert.equal(response.warnings, undefined);
  });
});

describe("validate: Audit and warnings", () => {
  test("an Audit failure is allowed, silently without emitWarning", () => {
    const { response, result } = run({ policies: [requireApp()] }, reviewOf(unlabelled));
    assert.deepEqual(response, { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true });
    assert.equal(result.status === 200 && result.auditResults?.[0]?.rules[0]?.status, "fail", "kept for reports");
  });
  test("with emitWarning, every non-skip rule becomes a warning", () => {
    const policy = clusterPolicy(
      "warn-me",
      [
        {
          name: "needs-app",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { message: "label app is required", pattern: { metadata: { labels: { app: "?*" } } } },
        },
        {
          name: "needs-team",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { message: "label team is required", pattern: { metadata: { labels: { team: "?*" } } } },
        },
      ],
      { emitWarning: true },
    );
    const { response, admissions } = run({ policies: [policy] }, reviewOf(unlabelled));
    assert.equal(response.allowed, true);
    assert.deepEqual(response.warnings, [
      "policy warn-me.needs-app: validation error: label app is required. rule needs-app failed at path /metadata/labels/app/",
      "policy warn-me.needs-team: validation rule 'needs-team' passed.",
    ]);
    assert.equal(admissions[0]?.warnings, 2);
  });
});

describe("validate: engine errors and failurePolicy", () => {
  const erroring = (spec: JsonObject): JsonObject =>
    clusterPolicy(
      "broken",
      [
        {
          name: "reads-missing",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: {
            message: "no",
            deny: {
              conditions: {
                any: [{ key: "{{ request.object.spec.nothere.deeper }}", operator: "Equals", value: "x" }],
              },
            },
          },
        },
      ],
      { ...enforce, ...spec },
    );
  test("Fail (the default) denies, naming the error", () => {
    const { response } = run({ policies: [erroring({})] }, reviewOf(labelled));
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /^\n\nresource Pod\/default\/nginx was blocked due to the following policies \n\nbroken:\n {2}reads-missing: /,
    );
  });
  for (const where of [{ failurePolicy: "Ignore" }, { webhookConfiguration: { failurePolicy: "Ignore" } }]) {
    test(`Ignore allows (${Object.keys(where)[0]})`, () => {
      const { response, results } = run({ policies: [erroring(where)] }, reviewOf(labelled));
      assert.equal(results[0]?.result, "error");
      assert.equal(response.allowed, true);
    });
  }
  test("an Audit rule that errors admits with a warning naming the policy, the rule and the reason", () => {
    const { response, results } = run(
      { policies: [erroring({ validationFailureAction: "Audit" })] },
      reviewOf(labelled),
    );
    assert.equal(results[0]?.result, "error");
    assert.equal(response.allowed, true);
    assert.equal(response.warnings?.length, 1);
    assert.match(response.warnings?.[0] ?? "", /^policy broken\.reads-missing: \S/);
  });
  test("an erroring Audit rule with emitWarning warns once, and an Enforce rule under Ignore stays silent", () => {
    const audit = run(
      { policies: [erroring({ validationFailureAction: "Audit", emitWarning: true })] },
      reviewOf(labelled),
    ).response;
    assert.equal(audit.allowed, true);
    assert.equal(audit.warnings?.length, 1);
    assert.match(audit.warnings?.[0] ?? "", /^policy broken\.reads-missing: /);
    const ignored = run({ policies: [erroring({ failurePolicy: "Ignore" })] }, reviewOf(labelled)).response;
    assert.equal(ignored.allowed, true);
    assert.equal(ignored.warnings, undefined);
  });
  test("/validate/fail serves Fail policies only, /validate/ignore the Ignore ones", () => {
    const setup = { policies: [requireApp({ ...enforce, failurePolicy: "Ignore" })] };
    assert.equal(run(setup, reviewOf(unlabelled), "fail").response.allowed, true);
    assert.equal(run(setup, reviewOf(unlabelled), "ignore").response.allowed, false);
    assert.equal(run(setup, reviewOf(unlabelled)).response.allowed, false);
  });
  test("admission: false keeps a policy out", () => {
    assert.equal(
      run({ policies: [requireApp({ ...enforce, admission: false })] }, reviewOf(unlabelled)).response.allowed,
      true,
    );
  });
});

describe("validate: operations", () => {
  test("UPDATE of an object that already violated is allowed (allowExistingViolations); a new violation is denied", () => {
    const setup = { policies: [requireApp(enforce)] };
    assert.equal(
      run(
        setup,
        reviewOf(unlabelled, { operation: "UPDATE", oldObject: pod({ name: "nginx", labels: { team: "b" } }) }),
      ).response.allowed,
      true,
    );
    const r = run(setup, reviewOf(unlabelled, { operation: "UPDATE", oldObject: labelled }));
    assert.equal(r.response.status?.message, BLOCKED);
  });
  test("DELETE is judged on oldObject", () => {
    const noDelete = clusterPolicy(
      "protect",
      [
        {
          name: "keep",
          match: { any: [{ resources: { kinds: ["Pod"], operations: ["DELETE"] } }] },
          validate: {
            message: "protected pods stay",
            deny: {
              conditions: {
                any: [
                  { key: "{{ request.oldObject.metadata.labels.protected || '' }}", operator: "Equals", value: "true" },
                ],
              },
            },
          },
        },
      ],
      enforce,
    );
    const victim = pod({ name: "db", labels: { protected: "true" } });
    const r = run(
      { policies: [noDelete] },
      reviewOf(null, { operation: "DELETE", name: "db", namespace: "default", oldObject: victim }),
    );
    assert.equal(
      r.response.status?.message,
      "\n\nresource Pod/default/db was blocked due to the following policies \n\nprotect:\n  keep: protected pods stay\n",
    );
    assert.equal(r.admissions[0]?.name, "db");
    assert.equal(
      run({ policies: [noDelete] }, reviewOf(null, { operation: "DELETE", oldObject: pod({ name: "db" }) })).response
        .allowed,
      true,
    );
  });
  test("a pods/exec CONNECT matches Pod/exec (not Pod), with request.name from the review", () => {
    const noExec = clusterPolicy(
      "deny-exec",
      [
        {
          name: "no-exec",
          match: { any: [{ resources: { kinds: ["Pod/exec"] } }] },
          validate: { message: "no exec into {{ request.name }}", deny: {} },
        },
      ],
      enforce,
    );
    const podOnly = requireApp(enforce);
    const execOptions: JsonObject = {
      apiVersion: "v1",
      kind: "PodExecOptions",
      stdin: true,
      command: ["sh"],
      container: "app",
    };
    const exec = reviewOf(execOptions, {
      operation: "CONNECT",
      name: "nginx",
      namespace: "default",
      subResource: "exec",
      resource: { group: "", version: "v1", resource: "pods" },
    });
    const r = run({ policies: [noExec, podOnly] }, exec);
    assert.equal(
      r.response.status?.message,
      "\n\nresource PodExecOptions// was blocked due to the following policies \n\ndeny-exec:\n  no-exec: no exec into nginx\n",
    );
    assert.equal(run({ policies: [podOnly] }, exec).response.allowed, true);
  });
  test("dryRun is evaluated the same and recorded", () => {
    const r = run({ policies: [requireApp(enforce)] }, reviewOf(unlabelled, { dryRun: true }));
    assert.equal(r.response.allowed, false);
    assert.equal(r.admissions[0]?.dryRun, true);
    assert.ok(r.results.length > 0 && r.results.every((e) => e.dryRun));
  });
});

describe("validate: who and where", () => {
  const adminsOnly = clusterPolicy(
    "no-admin-pods",
    [
      {
        name: "not-admins",
        match: { any: [{ resources: { kinds: ["Pod"] }, clusterRoles: ["cluster-admin"] }] },
        validate: { message: "admins may not create pods", deny: {} },
      },
    ],
    { ...enforce, background: false },
  );
  test("match clusterRoles uses the roles the cluster grants the user", () => {
    const setup = { policies: [adminsOnly], clusterRoles: { root: ["cluster-admin"] } };
    assert.equal(
      run(setup, reviewOf(labelled, { userInfo: { username: "root", groups: [] } })).response.allowed,
      false,
    );
    assert.equal(
      run(setup, reviewOf(labelled, { userInfo: { username: "alice", groups: [] } })).response.allowed,
      true,
    );
  });
  test("namespaceSelector reads the namespace's labels from the cluster facts", () => {
    const prodOnly = clusterPolicy(
      "prod-needs-app",
      [
        {
          name: "app",
          match: { any: [{ resources: { kinds: ["Pod"], namespaceSelector: { matchLabels: { env: "prod" } } } }] },
          validate: { message: "app label", pattern: { metadata: { labels: { app: "?*" } } } },
        },
      ],
      enforce,
    );
    const namespaces = { shop: { env: "prod" }, lab: { env: "dev" } };
    assert.equal(
      run({ policies: [prodOnly], namespaces }, reviewOf(pod({ name: "x", namespace: "shop" }))).response.allowed,
      false,
    );
    assert.equal(
      run({ policies: [prodOnly], namespaces }, reviewOf(pod({ name: "x", namespace: "lab" }))).response.allowed,
      true,
    );
  });
});

describe("validate: deadline and recording", () => {
  const two = [requireApp(enforce, "first"), requireApp(enforce, "second")];
  // The fake clock moves 6 s per reading: the first policy starts 6 s in, the second would start 12 s in.
  test("past the deadline, a Fail policy left out denies", () => {
    const r = run({ policies: two, clockStep: 6, deadlineSeconds: 10 }, reviewOf(labelled));
    assert.equal(r.response.allowed, false);
    assert.equal(
      r.response.status?.message,
      "bylaw: admission review exceeded its deadline of 10s before evaluating 1 policy with failurePolicy Fail (second); denied",
    );
  });
  test("past the deadline, Ignore policies left out allow", () => {
    const ignoring = [
      requireApp({ ...enforce, failurePolicy: "Ignore" }, "first"),
      requireApp({ ...enforce, failurePolicy: "Ignore" }, "second"),
    ];
    assert.equal(
      run({ policies: ignoring, clockStep: 6, deadlineSeconds: 10 }, reviewOf(labelled)).response.allowed,
      true,
    );
  });
  test("every rule result is recorded, with its review's labels", () => {
    const r = run({ policies: [requireApp(enforce), requireApp({}, "audit-only")] }, reviewOf(labelled));
    assert.deepEqual(
      r.results.map((e) => [
        e.policy.name,
        e.rule,
        e.ruleType,
        e.result,
        e.resourceKind,
        e.resourceNamespace,
        e.operation,
        e.dryRun,
      ]),
      [
        ["require-labels", "check-for-labels", "validate", "pass", "Pod", "default", "CREATE", false],
        ["audit-only", "check-for-labels", "validate", "pass", "Pod", "default", "CREATE", false],
      ],
    );
  });
});

describe("validate: PolicyExceptions loaded with the policies", () => {
  const exception = (namespace: string, names: string[] = ["nginx"]): JsonObject => ({
    apiVersion: "kyverno.io/v2",
    kind: "PolicyException",
    metadata: { name: "allow-nginx", namespace },
    spec: {
      exceptions: [{ policyName: "require-labels", ruleNames: ["check-for-labels"] }],
      match: { any: [{ resources: { kinds: ["Pod"], names } }] },
    },
  });

  test("an excepted resource is allowed and its rule result is a skip naming the exception", () => {
    const { response, results } = run(
      { policies: [requireApp(enforce)], exceptions: [exception("policies")] },
      reviewOf(unlabelled),
    );
    assert.equal(response.allowed, true);
    assert.deepEqual(
      results.map((r) => [r.rule, r.result]),
      [["check-for-labels", "skip"]],
    );
  });

  test("an exception that does not match the resource changes nothing", () => {
    const { response } = run(
      { policies: [requireApp(enforce)], exceptions: [exception("policies", ["other"])] },
      reviewOf(unlabelled),
    );
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, BLOCKED);
  });

  test("with --exception-namespace, exceptions elsewhere are ignored", () => {
    const ignored = run(
      { policies: [requireApp(enforce)], exceptions: [exception("policies")], exceptionNamespaces: ["bylaw"] },
      reviewOf(unlabelled),
    );
    assert.equal(ignored.response.allowed, false);
    const honoured = run(
      { policies: [requireApp(enforce)], exceptions: [exception("bylaw")], exceptionNamespaces: ["bylaw"] },
      reviewOf(unlabelled),
    );
    assert.equal(honoured.response.allowed, true);
  });
});
