/** Policies are served on the path of their failurePolicy and timeout group; an unregistered group is a load problem. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { servedBy } from "./policy-traits.js";
import {
  checkTimeoutGroups,
  fineGrainedGroup,
  groupOf,
  groupPath,
  groupWebhookName,
  parseFineGrainedPath,
  registeredGroups,
  timeoutProblems,
  type TimeoutGroups,
} from "./webhook-groups.js";

const engine = createEngine(fakePorts());
const compiled = (spec: JsonObject, name = "p"): CompiledPolicy => {
  const r = engine.compile(
    clusterPolicy(
      name,
      [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { message: "m", pattern: { metadata: { labels: { app: "?*" } } } },
        },
      ],
      spec,
    ),
  );
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
};
const defaults: TimeoutGroups = { defaultSeconds: 10, extra: [] };
const with20: TimeoutGroups = { defaultSeconds: 10, extra: [20] };

describe("webhook groups", () => {
  const cases: {
    name: string;
    spec: JsonObject;
    groups: TimeoutGroups;
    validate: string;
    mutate: string;
    webhook: string;
  }[] = [
    {
      name: "no timeout, failurePolicy unset (Fail)",
      spec: {},
      groups: defaults,
      validate: "/validate/fail",
      mutate: "/mutate/fail",
      webhook: "validate.bylaw.svc-fail",
    },
    {
      name: "failurePolicy Ignore",
      spec: { failurePolicy: "Ignore" },
      groups: defaults,
      validate: "/validate/ignore",
      mutate: "/mutate/ignore",
      webhook: "validate.bylaw.svc-ignore",
    },
    {
      name: "webhookConfiguration.failurePolicy",
      spec: { webhookConfiguration: { failurePolicy: "Ignore" } },
      groups: defaults,
      validate: "/validate/ignore",
      mutate: "/mutate/ignore",
      webhook: "validate.bylaw.svc-ignore",
    },
    {
      name: "the default timeout written out",
      spec: { webhookTimeoutSeconds: 10 },
      groups: defaults,
      validate: "/validate/fail",
      mutate: "/mutate/fail",
      webhook: "validate.bylaw.svc-fail",
    },
    {
      name: "another timeout",
      spec: { webhookTimeoutSeconds: 20 },
      groups: with20,
      validate: "/validate/fail/timeout-20s",
      mutate: "/mutate/fail/timeout-20s",
      webhook: "validate.bylaw.svc-fail-timeout-20s",
    },
    {
      name: "webhookConfiguration.timeoutSeconds",
      spec: { webhookConfiguration: { timeoutSeconds: 20, failurePolicy: "Ignore" } },
      groups: with20,
      validate: "/validate/ignore/timeout-20s",
      mutate: "/mutate/ignore/timeout-20s",
      webhook: "validate.bylaw.svc-ignore-timeout-20s",
    },
    {
      name: "a timeout equal to a non-default --timeout-seconds is the default group",
      spec: { webhookTimeoutSeconds: 20 },
      groups: { defaultSeconds: 20, extra: [] },
      validate: "/validate/fail",
      mutate: "/mutate/fail",
      webhook: "validate.bylaw.svc-fail",
    },
  ];
  for (const c of cases) {
    test(`${c.name}: served on ${c.validate} and nowhere else`, () => {
      const policy = compiled(c.spec);
      const group = groupOf(policy, c.groups);
      assert.equal(groupPath("validate", group), c.validate);
      assert.equal(groupPath("mutate", group), c.mutate);
      assert.equal(groupWebhookName("validate", group), c.webhook);
      assert.deepEqual(timeoutProblems(policy, c.groups), []);
      const serving = registeredGroups(c.groups)
        .filter((g) => servedBy(policy, g))
        .map((g) => groupPath("validate", g));
      assert.deepEqual(serving, [c.validate], "exactly one registered path serves it");
    });
  }

  test("a timeout with no registered group is a problem naming the field, the webhook to register and the flag", () => {
    const [p] = timeoutProblems(
      compiled({ webhookConfiguration: { timeoutSeconds: 25, failurePolicy: "Ignore" } }),
      with20,
    );
    assert.equal(p?.path, "spec.webhookConfiguration.timeoutSeconds");
    assert.match(
      p?.message ?? "",
      /no webhook is registered for the 25s timeout, so this policy would never be evaluated: register validate\.bylaw\.svc-ignore-timeout-25s \(path \/validate\/ignore\/timeout-25s\) .* --timeout-group 25/,
    );
    assert.deepEqual(
      registeredGroups(with20).filter((g) => servedBy(compiled({ webhookTimeoutSeconds: 25 }), g)),
      [],
      "and no registered path serves it",
    );
  });

  test("with fine-grained webhooks registered, a policy with matchConditions has its own webhook and timeout: no group needed, parsed back from its path", () => {
    const own = compiled({
      webhookConfiguration: { timeoutSeconds: 25, matchConditions: [{ name: "c", expression: "true" }] },
    });
    assert.deepEqual(timeoutProblems(own, { ...with20, fineGrained: true }), []);
    assert.equal(timeoutProblems(own, with20).length, 1, "without them it still needs a registered group");
    assert.deepEqual(
      registeredGroups({ ...with20, fineGrained: true }).filter((g) => servedBy(own, g)),
      [],
      "the shared paths leave it out",
    );
    const group = fineGrainedGroup(own, with20);
    assert.deepEqual(
      [groupPath("validate", group), groupWebhookName("mutate", group), group.timeoutSeconds],
      ["/validate/fail/finegrained/p", "mutate.bylaw.svc-fail-finegrained-p", 25],
    );
    assert.deepEqual(parseFineGrainedPath("/mutate/ignore/finegrained/team-a/p"), {
      kind: "mutate",
      mode: "ignore",
      policy: "team-a/p",
    });
    const long = { ...group, policy: `team-${"a".repeat(58)}/${"p".repeat(240)}` };
    const name = groupWebhookName("validate", long);
    assert.ok(
      name.length <= 253 && /^validate\.bylaw\.svc-fail-finegrained-team-a+-p+-[0-9a-f]{12}$/.test(name),
      `${name.length}: ${name}`,
    );
    assert.notEqual(
      name,
      groupWebhookName("validate", { ...long, policy: `${long.policy}q` }),
      "two long names stay apart",
    );
    for (const bad of [
      "/validate/fail/finegrained/",
      "/validate/fail/finegrained/a/b/c",
      "/validate/other/finegrained/p",
      "/validate/fail/finegrained/../p",
    ])
      assert.equal(parseFineGrainedPath(bad), undefined, bad);
  });

  test("a timeout outside 1–30 or not whole never compiles, so it never reaches a group", () => {
    for (const bad of [0, 31, 2.5, "10"]) {
      const r = engine.compile(
        clusterPolicy(
          "p",
          [
            {
              name: "r",
              match: { any: [{ resources: { kinds: ["Pod"] } }] },
              validate: { message: "m", pattern: { metadata: { name: "?*" } } },
            },
          ],
          { webhookTimeoutSeconds: bad },
        ),
      );
      assert.equal(r.ok, false, String(bad));
      if (!r.ok) {
        assert.equal(r.problems[0]?.path, "spec.webhookTimeoutSeconds", String(bad));
        assert.match(
          r.problems[0]?.message ?? "",
          /must be a whole number of seconds between 1 and 30|must be of type integer/,
        );
      }
    }
  });

  test("flags: the default and further groups must be 1–30 and distinct", () => {
    assert.equal(checkTimeoutGroups(with20), undefined);
    assert.match(
      checkTimeoutGroups({ defaultSeconds: 0, extra: [] }) ?? "",
      /--timeout-seconds must be a whole number from 1 to 30/,
    );
    assert.match(checkTimeoutGroups({ defaultSeconds: 10, extra: [45] }) ?? "", /--timeout-group must be/);
    assert.match(checkTimeoutGroups({ defaultSeconds: 10, extra: [10] }) ?? "", /is the default timeout/);
  });
});
