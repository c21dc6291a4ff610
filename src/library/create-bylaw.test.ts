/** The library API: policies in (objects or YAML text), results, patched and generated resources out. */
import { generateKeyPairSync } from "node:crypto";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../engine/index.js";
import { createBylaw } from "./create-bylaw.js";
import type { Bylaw, BylawOptions } from "./types.js";
import { pod } from "../../test/support/builders.js";

const requireTeam: JsonObject = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "require-team" },
  spec: {
    validationFailureAction: "Enforce",
    rules: [
      {
        name: "check-team",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { message: "Pods need a team label.", pattern: { metadata: { labels: { team: "?*" } } } },
      },
    ],
  },
};

const defaultTeam = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: default-team}
spec:
  rules:
    - name: add-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {labels: {+(team): bravo}}
`;

const cloneSecret = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: sync-regcred}
spec:
  rules:
    - name: clone-regcred
      match: {any: [{resources: {kinds: [Namespace]}}]}
      generate:
        apiVersion: v1
        kind: Secret
        name: regcred
        namespace: "{{ request.object.metadata.name }}"
        clone: {namespace: default, name: regcred}
`;

const shopPod = (labels: Record<string, string> = {}, namespace = "shop"): JsonObject => pod({ namespace, labels });

function load(options: BylawOptions): Bylaw {
  const outcome = createBylaw(options);
  if (!outcome.ok) throw new Error(outcome.errors.join("\n"));
  return outcome.bylaw;
}

describe("createBylaw", () => {
  test("a failing Enforce rule is a fail result with its policy and action, and blocks", () => {
    const report = load({ policies: [requireTeam] }).check(shopPod());
    assert.equal(report.results.length, 1);
    const [r] = report.results;
    assert.equal(r?.policy, "require-team");
    assert.equal(r?.rule, "check-team");
    assert.equal(r?.status, "fail");
    assert.equal(r?.action, "Enforce");
    assert.match(r?.message ?? "", /Pods need a team label/);
    assert.equal(report.blocked, true);
    assert.deepEqual(report.summary, { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 });
    assert.equal(load({ policies: [requireTeam] }).check(shopPod({ team: "a" })).blocked, false);
  });

  test("mutate policies from YAML text patch the resource, and validation sees the patched one", () => {
    const bylaw = load({ policies: [defaultTeam, requireTeam] });
    const report = bylaw.check(shopPod());
    assert.deepEqual((report.patched["metadata"] as JsonObject)["labels"], { team: "bravo" });
    assert.deepEqual((report.resource["metadata"] as JsonObject)["labels"], {}, "the given object is left as it was");
    assert.deepEqual(
      report.results.map((r) => `${r.policy}/${r.rule}: ${r.type} ${r.status}`),
      ["default-team/add-team: Mutation pass", "require-team/check-team: Validation pass"],
    );
    assert.equal(report.blocked, false);
  });

  test("generate rules return what they would create, cloning from the existing objects given", () => {
    const regcred: JsonObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "regcred", namespace: "default" },
      data: { k: "dg==" },
    };
    const report = load({ policies: [cloneSecret] }).check(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
      { existing: [regcred] },
    );
    assert.equal(report.generated.length, 1);
    const made = report.generated[0]?.resource;
    assert.deepEqual(made?.["metadata"], { name: "regcred", namespace: "shop" });
    assert.deepEqual(made?.["data"], { k: "dg==" });
  });

  test("without the clone source, the generate rule is an error, not a pass", () => {
    const report = load({ policies: [cloneSecret] }).check({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "shop" },
    });
    assert.equal(report.results[0]?.status, "error");
    assert.equal(report.generated.length, 0);
  });

  test("a PolicyException among the policies skips the rule it names", () => {
    const exception: JsonObject = {
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "legacy", namespace: "shop" },
      spec: {
        exceptions: [{ policyName: "require-team", ruleNames: ["check-team"] }],
        match: { any: [{ resources: { kinds: ["Pod"], names: ["web"] } }] },
      },
    };
    const report = load({ policies: [requireTeam, exception] }).check(shopPod());
    assert.equal(report.results[0]?.status, "skip");
    assert.deepEqual(report.results[0]?.exceptions, ["shop/legacy"]);
    assert.equal(report.blocked, false);
  });

  test("a rule that reads cluster data nobody gave is an error naming the entry; a mocked answer is used", () => {
    const policy: JsonObject = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "quota" },
      spec: {
        rules: [
          {
            name: "count",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            context: [
              {
                name: "pods",
                apiCall: { urlPath: "/api/v1/namespaces/{{request.namespace}}/pods", jmesPath: "items | length(@)" },
              },
            ],
            validate: {
              message: "too many",
              deny: { conditions: { any: [{ key: "{{ pods }}", operator: "GreaterThan", value: 2 }] } },
            },
          },
        ],
      },
    };
    const offline = load({ policies: [policy] }).check(shopPod());
    assert.equal(offline.results[0]?.status, "error");
    assert.match(offline.results[0]?.message ?? "", /pods/);
    const mocked = load({
      policies: [policy],
      apiCalls: [{ urlPath: "/api/v1/namespaces/shop/pods", statusCode: 200, body: { items: [1, 2, 3] } }],
    }).check(shopPod());
    assert.equal(mocked.results[0]?.status, "fail");
  });

  test("DELETE checks the resource as the object being deleted", () => {
    const policy: JsonObject = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "keep-protected" },
      spec: {
        rules: [
          {
            name: "no-delete",
            match: { any: [{ resources: { kinds: ["Pod"], operations: ["DELETE"] } }] },
            validate: {
              message: "protected",
              deny: {
                conditions: {
                  any: [
                    {
                      key: "{{ request.oldObject.metadata.labels.protected || '' }}",
                      operator: "Equals",
                      value: "true",
                    },
                  ],
                },
              },
            },
          },
        ],
      },
    };
    const bylaw = load({ policies: [policy] });
    assert.equal(bylaw.check(shopPod({ protected: "true" })).results.length, 0, "CREATE does not match the rule");
    assert.equal(bylaw.check(shopPod({ protected: "true" }), { operation: "DELETE" }).results[0]?.status, "fail");
    assert.equal(bylaw.check(shopPod(), { operation: "DELETE" }).results[0]?.status, "pass");
  });

  test("UPDATE sees the old object given, and namespaceLabels decide a namespaceSelector", () => {
    const policy: JsonObject = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "team-is-fixed" },
      spec: {
        rules: [
          {
            name: "same-team",
            match: {
              any: [
                {
                  resources: {
                    kinds: ["Pod"],
                    operations: ["UPDATE"],
                    namespaceSelector: { matchLabels: { tier: "prod" } },
                  },
                },
              ],
            },
            validate: {
              message: "the team label cannot change",
              deny: {
                conditions: {
                  any: [
                    {
                      key: "{{ request.object.metadata.labels.team }}",
                      operator: "NotEquals",
                      value: "{{ request.oldObject.metadata.labels.team }}",
                    },
                  ],
                },
              },
            },
          },
        ],
      },
    };
    const bylaw = load({ policies: [policy] });
    const prod = { tier: "prod" };
    assert.equal(
      bylaw.check(shopPod({ team: "b" }), {
        operation: "UPDATE",
        oldResource: shopPod({ team: "a" }),
        namespaceLabels: prod,
      }).results[0]?.status,
      "fail",
    );
    assert.equal(
      bylaw.check(shopPod({ team: "a" }), {
        operation: "UPDATE",
        oldResource: shopPod({ team: "a" }),
        namespaceLabels: prod,
      }).results[0]?.status,
      "pass",
    );
    assert.equal(
      bylaw.check(shopPod({ team: "b" }), { operation: "UPDATE", oldResource: shopPod({ team: "a" }) }).results.length,
      0,
      "no labels: the namespaceSelector does not match",
    );
  });

  test("an invalid policy is an error naming the input, the document and the field; nothing runs", () => {
    const broken = {
      ...requireTeam,
      spec: {
        ...(requireTeam["spec"] as JsonObject),
        rules: [
          { name: "x", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate: { patern: { metadata: {} } } },
        ],
      },
    };
    const outcome = createBylaw({ policies: [defaultTeam, broken] });
    assert.equal(outcome.ok, false);
    if (outcome.ok) return;
    assert.equal(outcome.errors.length, 1);
    assert.match(
      outcome.errors[0] ?? "",
      /^policies\[1\]: document 1: invalid policy require-team: spec\.rules\[0\]\.validate/,
    );
  });

  test("YAML errors, non-policy documents and an empty input are errors", () => {
    const bad = createBylaw({ policies: ["kind: [", { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }] });
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(bad.errors.length, 2);
      assert.match(bad.errors[0] ?? "", /^policies\[0\]/);
      assert.match(bad.errors[1] ?? "", /^policies\[1\]: document 1: not a policy/);
    }
    const empty = createBylaw({ policies: [] });
    assert.deepEqual(empty.ok ? [] : empty.errors, [
      "no policy among the inputs: give at least one ClusterPolicy or Policy",
    ]);
  });
});

test("createBylaw reads no registry: an image check is an error that says so, not advice about a CLI flag", () => {
  const loaded = createBylaw({
    policies: [
      {
        apiVersion: "kyverno.io/v1",
        kind: "ClusterPolicy",
        metadata: { name: "digests" },
        spec: {
          rules: [
            {
              name: "signed",
              match: { any: [{ resources: { kinds: ["Pod"] } }] },
              verifyImages: [
                {
                  imageReferences: ["ghcr.io/acme/*"],
                  mutateDigest: false,
                  attestors: [
                    {
                      entries: [
                        {
                          keys: {
                            publicKeys: generateKeyPairSync("ec", { namedCurve: "P-256" })
                              .publicKey.export({ type: "spki", format: "pem" })
                              .toString(),
                            rekor: { ignoreTlog: true },
                          },
                        },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      },
    ],
  });
  assert.ok(loaded.ok);
  const [result] = loaded.bylaw.check({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "shop" },
    spec: { containers: [{ name: "app", image: "ghcr.io/acme/web:1.0" }] },
  }).results;
  assert.equal(result?.status, "error");
  assert.match(result?.message ?? "", /createBylaw reads no image registry/);
});

test("check(null), an array or a kind-less object is an error value saying what to give, never a pass or a TypeError", () => {
  const bylaw = load({ policies: [requireTeam] });
  const none = bylaw.check(null as unknown as JsonObject);
  assert.equal(
    none.error,
    "check: the resource must be a Kubernetes object (a mapping with apiVersion, kind and metadata); got null",
  );
  assert.deepEqual([none.results, none.summary.error, none.blocked], [[], 1, false]);
  assert.match(bylaw.check([] as unknown as JsonObject).error ?? "", /got an array$/);
  assert.equal(
    bylaw.check({ metadata: { name: "x" } }).error,
    "check: the resource has no kind; give a Kubernetes object with apiVersion, kind and metadata",
  );
  assert.equal(bylaw.check(shopPod()).error, undefined);
});
