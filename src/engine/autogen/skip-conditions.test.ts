import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { autogenRules } from "./autogen.js";
import { canAutogen } from "./can-autogen.js";
import { podRule, policyOf } from "../../../test/support/autogen-policies.js";

const anyPod = (resources: object): object => ({ any: [{ resources: { kinds: ["Pod"], ...resources } }] });

describe("autogen is skipped for the whole policy when any rule …", () => {
  const cases: [string, object][] = [
    ["has a generate rule", { name: "g", match: anyPod({}), generate: { kind: "ConfigMap", name: "x" } }],
    [
      "uses patchesJson6902",
      { name: "m", match: anyPod({}), mutate: { patchesJson6902: "- op: add\n  path: /x\n  value: 1" } },
    ],
    [
      "uses patchesJson6902 in foreach",
      { name: "m", match: anyPod({}), mutate: { foreach: [{ list: "x", patchesJson6902: "[]" }] } },
    ],
    ["has name in match", podRule("n", { match: anyPod({ name: "web" }) })],
    ["has names in match", podRule("n", { match: anyPod({ names: ["web"] }) })],
    ["has a selector in match", podRule("n", { match: anyPod({ selector: { matchLabels: { a: "b" } } }) })],
    ["has an empty selector in match", podRule("n", { match: anyPod({ selector: {} }) })],
    ["has annotations in match", podRule("n", { match: anyPod({ annotations: {} }) })],
    ["has names in exclude", podRule("n", { exclude: { any: [{ resources: { names: ["x"] } }] } })],
    [
      "has a selector in legacy exclude",
      podRule("n", { exclude: { resources: { selector: { matchLabels: { a: "b" } } } } }),
    ],
    [
      "lists Pod with other kinds in one filter",
      podRule("n", { match: { any: [{ resources: { kinds: ["Pod", "Deployment"] } }] } }),
    ],
    [
      "lists v1/Pod with other kinds in one filter",
      podRule("n", { match: { resources: { kinds: ["v1/Pod", "Service"] } } }),
    ],
  ];
  for (const [name, rule] of cases) {
    test(name, () => {
      const policy = policyOf([podRule("ok"), rule]);
      assert.equal(canAutogen(policy), false);
      assert.deepEqual(autogenRules(policy), []);
    });
  }

  test("no filter names Pod or a controller verbatim", () => {
    assert.deepEqual(autogenRules(policyOf([podRule("s", { match: anyPod({ kinds: ["Service"] }) })])), []);
    assert.deepEqual(autogenRules(policyOf([podRule("s", { match: anyPod({ kinds: ["v1/Pod"] }) })])), []);
  });

  test("a rule on a controller kind alone makes the policy eligible (and the Pod rules get generated)", () => {
    const policy = policyOf([
      podRule("d", { match: anyPod({ kinds: ["v1/Pod"] }) }),
      podRule("x", { match: anyPod({ kinds: ["Deployment"] }) }),
    ]);
    assert.equal(canAutogen(policy), true);
    assert.deepEqual(
      autogenRules(policy).map((r) => r.name),
      ["autogen-d", "autogen-cronjob-d"],
    );
  });
});

describe("autogen skips single rules when …", () => {
  test("match does not name Pod", () => {
    const policy = policyOf([podRule("a"), podRule("svc", { match: anyPod({ kinds: ["Deployment"] }) })]);
    assert.deepEqual(
      autogenRules(policy).map((r) => r.name),
      ["autogen-a", "autogen-cronjob-a"],
    );
  });

  test("exclude names kinds but not Pod", () => {
    const policy = policyOf([
      podRule("a"),
      podRule("b", { exclude: { any: [{ resources: { kinds: ["Deployment"] } }] } }),
    ]);
    assert.deepEqual(
      autogenRules(policy).map((r) => r.name),
      ["autogen-a", "autogen-cronjob-a"],
    );
  });

  test("exclude names Pod: its kinds follow the controllers", () => {
    const exclude = { any: [{ resources: { kinds: ["Pod"], namespaces: ["kube-system"] } }] };
    const [pod] = autogenRules(policyOf([podRule("b", { exclude })]));
    assert.deepEqual(pod?.exclude?.any?.[0]?.resources?.kinds?.[0], "apps/v1/DaemonSet");
  });

  test("the rule is already an autogen- rule", () => {
    assert.deepEqual(
      autogenRules(policyOf([podRule("autogen-a"), podRule("b")])).map((r) => r.name),
      ["autogen-b", "autogen-cronjob-b"],
    );
  });

  test("the rule type cannot be carried (validate.manifests, mutate targets only)", () => {
    const policy = policyOf([
      { name: "m", match: anyPod({}), validate: { manifests: { attestors: [] } } },
      { name: "t", match: anyPod({}), mutate: { targets: [{ kind: "ConfigMap" }] } },
    ]);
    assert.deepEqual(autogenRules(policy), []);
  });
});
