import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { autogenRules, computeRules } from "./autogen.js";
import { autogenControllers } from "./controllers.js";
import { TEMPLATE_KINDS, podRule, policyOf } from "../../../test/support/autogen-policies.js";

const ANNOTATION = "pod-policies.kyverno.io/autogen-controllers";

describe("autogenRules golden output", () => {
  test("a Pod pattern rule gives autogen- and autogen-cronjob- rules", () => {
    const policy = policyOf([
      {
        name: "validate-registries",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: {
          failureAction: "Enforce",
          message: "Images may only come from our internal enterprise registry.",
          pattern: { spec: { containers: [{ image: "registry.domain.com/*" }] } },
        },
      },
    ]);
    const containers = [{ image: "registry.domain.com/*" }];
    assert.deepEqual(JSON.parse(JSON.stringify(autogenRules(policy))), [
      {
        name: "autogen-validate-registries",
        match: { any: [{ resources: { kinds: TEMPLATE_KINDS } }] },
        validate: {
          message: "Images may only come from our internal enterprise registry.",
          failureAction: "Enforce",
          pattern: { spec: { template: { spec: { containers } } } },
        },
      },
      {
        name: "autogen-cronjob-validate-registries",
        match: { any: [{ resources: { kinds: ["batch/v1/CronJob"] } }] },
        validate: {
          message: "Images may only come from our internal enterprise registry.",
          failureAction: "Enforce",
          pattern: { spec: { jobTemplate: { spec: { template: { spec: { containers } } } } } },
        },
      },
    ]);
  });

  test("legacy match and exclude blocks get qualified kinds", () => {
    const rule = podRule("r", {
      match: { resources: { kinds: ["Pod"], namespaces: ["prod"] } },
      exclude: { resources: { kinds: ["Pod"], namespaces: ["kube-system"] } },
    });
    const [pod, cron] = autogenRules(policyOf([rule]));
    assert.deepEqual(pod?.match, { resources: { kinds: TEMPLATE_KINDS, namespaces: ["prod"] } });
    assert.deepEqual(pod?.exclude, { resources: { kinds: TEMPLATE_KINDS, namespaces: ["kube-system"] } });
    assert.deepEqual(cron?.match, { resources: { kinds: ["batch/v1/CronJob"], namespaces: ["prod"] } });
    assert.deepEqual(cron?.exclude, { resources: { kinds: ["batch/v1/CronJob"], namespaces: ["kube-system"] } });
  });

  test("only filters naming Pod are retargeted; the CronJob rule retargets every filter", () => {
    const rule = podRule("r", {
      match: { any: [{ resources: { kinds: ["Pod"] } }, { resources: { kinds: ["Service"] } }] },
      exclude: { any: [{ resources: { namespaces: ["kube-system"] } }] },
    });
    const [pod, cron] = autogenRules(policyOf([rule]));
    assert.deepEqual(pod?.match, {
      any: [{ resources: { kinds: TEMPLATE_KINDS } }, { resources: { kinds: ["Service"] } }],
    });
    assert.deepEqual(pod?.exclude, { any: [{ resources: { namespaces: ["kube-system"] } }] });
    const cronKinds = { kinds: ["batch/v1/CronJob"] };
    assert.deepEqual(cron?.match, { any: [{ resources: cronKinds }, { resources: cronKinds }] });
    assert.deepEqual(cron?.exclude, { any: [{ resources: { namespaces: ["kube-system"], ...cronKinds } }] });
  });

  test("order: for each rule its autogen- rule then its autogen-cronjob- rule", () => {
    const names = autogenRules(policyOf([podRule("a"), podRule("b")])).map((r) => r.name);
    assert.deepEqual(names, ["autogen-a", "autogen-cronjob-a", "autogen-b", "autogen-cronjob-b"]);
  });

  test("computeRules: originals first, stale autogen- rules dropped, generated rules appended", () => {
    const names = computeRules(policyOf([podRule("a"), podRule("autogen-old"), podRule("b")])).map((r) => r.name);
    assert.deepEqual(names, ["a", "b", "autogen-a", "autogen-cronjob-a", "autogen-b", "autogen-cronjob-b"]);
  });

  test("computeRules keeps the policy unchanged when nothing is generated", () => {
    const rules = [podRule("autogen-x")];
    assert.deepEqual(
      computeRules(policyOf(rules, { [ANNOTATION]: "none" })).map((r) => r.name),
      ["autogen-x"],
    );
  });

  test("names are truncated to 63 characters", () => {
    const long = "r".repeat(60);
    const names = autogenRules(policyOf([podRule(long)])).map((r) => r.name);
    assert.deepEqual(names, [`autogen-${long}`.slice(0, 63), `autogen-cronjob-${long}`.slice(0, 63)]);
    assert.ok(names.every((n) => n.length === 63));
  });

  test("the caller's policy is not modified", () => {
    const policy = policyOf([podRule("a")]);
    const before = JSON.stringify(policy);
    autogenRules(policy);
    assert.equal(JSON.stringify(policy), before);
  });
});

describe("autogen-controllers annotation", () => {
  const kindsOf = (annotation: string | undefined): [string, string[]][] =>
    autogenRules(policyOf([podRule("r")], annotation === undefined ? undefined : { [ANNOTATION]: annotation })).map(
      (r) => {
        const any = r.match?.any ?? [];
        return [r.name, any[0]?.resources?.kinds ? [...any[0].resources.kinds] : []];
      },
    );

  const cases: [string, string | undefined, [string, string[]][], string[]][] = [
    [
      "absent means all",
      undefined,
      [
        ["autogen-r", TEMPLATE_KINDS],
        ["autogen-cronjob-r", ["batch/v1/CronJob"]],
      ],
      ["DaemonSet", "Deployment", "Job", "ReplicaSet", "ReplicationController", "StatefulSet", "CronJob"],
    ],
    ["none disables", "none", [], []],
    ["empty disables", "", [], []],
    [
      "all",
      "all",
      [
        ["autogen-r", TEMPLATE_KINDS],
        ["autogen-cronjob-r", ["batch/v1/CronJob"]],
      ],
      ["DaemonSet", "Deployment", "Job", "ReplicaSet", "ReplicationController", "StatefulSet", "CronJob"],
    ],
    [
      "a list without CronJob",
      "StatefulSet,Deployment",
      [["autogen-r", ["apps/v1/Deployment", "apps/v1/StatefulSet"]]],
      ["Deployment", "StatefulSet"],
    ],
    ["CronJob only", "CronJob", [["autogen-cronjob-r", ["batch/v1/CronJob"]]], ["CronJob"]],
    [
      "a list with CronJob",
      "Deployment,CronJob",
      [
        ["autogen-r", ["apps/v1/Deployment"]],
        ["autogen-cronjob-r", ["batch/v1/CronJob"]],
      ],
      ["Deployment", "CronJob"],
    ],
    ["an unknown kind alone is passed through", "CloneSet", [["autogen-r", ["CloneSet"]]], ["CloneSet"]],
    [
      "unknown kinds are dropped next to known ones",
      "CloneSet,Deployment",
      [["autogen-r", ["apps/v1/Deployment"]]],
      ["Deployment"],
    ],
    ["entries are not trimmed", "Deployment, StatefulSet", [["autogen-r", ["apps/v1/Deployment"]]], ["Deployment"]],
  ];
  for (const [name, annotation, rules, controllers] of cases) {
    test(name, () => {
      assert.deepEqual(kindsOf(annotation), rules);
      assert.deepEqual(
        autogenControllers(
          policyOf([podRule("r")], annotation === undefined ? undefined : { [ANNOTATION]: annotation }),
        ),
        controllers,
      );
    });
  }

  test("autogenControllers is empty when the policy cannot be auto-generated", () => {
    assert.deepEqual(
      autogenControllers(
        policyOf([podRule("r", { match: { any: [{ resources: { kinds: ["Pod"], names: ["x"] } }] } })]),
      ),
      [],
    );
  });
});

describe("autogen and subresource kinds (Kyverno pkg/autogen/v1: only a plain Pod asks for autogen; the subresource is dropped)", () => {
  const on = (kinds: string[]) => podRule("sub", { match: { any: [{ resources: { kinds } }] } });
  const names = (rules: readonly object[]) => computeRules(policyOf(rules)).map((r) => r.name);

  test("a policy whose rules name only Pod/ephemeralcontainers gets no autogen rules", () => {
    assert.deepEqual(names([on(["Pod/ephemeralcontainers"])]), ["sub"]);
  });

  test("Pod beside Pod/ephemeralcontainers in one kinds list is not Pod alone: no autogen", () => {
    assert.deepEqual(names([on(["Pod", "Pod/ephemeralcontainers"])]), ["sub"]);
  });

  test("with a plain Pod rule in the policy, a Pod/ephemeralcontainers rule gets autogen rules on the controllers themselves", () => {
    const rules = computeRules(policyOf([on(["Pod/ephemeralcontainers"]), podRule("pod")]));
    assert.deepEqual(
      rules.map((r) => r.name),
      ["sub", "pod", "autogen-sub", "autogen-cronjob-sub", "autogen-pod", "autogen-cronjob-pod"],
    );
    assert.deepEqual(rules[2]?.match?.any?.[0]?.resources?.kinds, TEMPLATE_KINDS);
  });
});
