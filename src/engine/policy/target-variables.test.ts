import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import type { Rule } from "../api/policy.js";
import { targetVariableProblems } from "./target-variables.js";

const rule = (target: JsonObject, extra: Partial<Rule> = {}): Rule => ({
  name: "r",
  match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
  mutate: { targets: [target], patchStrategicMerge: {} },
  ...extra,
});
const texts = (r: Rule, background = true): string[] =>
  targetVariableProblems(r, background, "spec.rules[0]").map((p) => `${p.path}: ${p.message}`);

test("request, target, function calls and the rule's context entries may be used in a target", () => {
  const target = {
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace: "{{ request.object.metadata.namespace }}",
    name: "{{ to_lower(cfg.data.name) }}",
    selector: { matchLabels: { app: "{{ target.metadata.labels.app }}" } },
  };
  const context = [{ name: "cfg", configMap: { name: "c", namespace: "n" } }];
  assert.deepEqual(texts(rule(target, { context })), []);
});

test("any other variable in a target is refused with Kyverno's text", () => {
  assert.deepEqual(texts(rule({ apiVersion: "v1", kind: "ConfigMap", namespace: "{{ unknown.ns }}" })), [
    'spec.rules[0].mutate.targets[0]: policy contains invalid variables: invalid variables defined at mutate.targets[0]: variable unknown.ns must match regex "request\\.|element|elementIndex|@|images|images\\.|image\\.|target\\.|([a-z_0-9]+\\()[^{}]" or patterns []',
  ]);
});

test("serviceAccountName only with background scans off", () => {
  const r = rule({ apiVersion: "v1", kind: "ConfigMap", name: "{{ serviceAccountName }}" });
  assert.equal(texts(r, true).length, 1);
  assert.deepEqual(texts(r, false), []);
});
