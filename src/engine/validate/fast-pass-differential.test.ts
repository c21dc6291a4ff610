/**
 * The fast pass against the full pipeline on generated pattern rules and Pods: every request gets
 * the same results from a policy with fast passes as from the same policy without them.
 */
import { kyvernoCompiledRules } from "../policy/compiled-policy.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../api/json.js";
import type { Operation } from "../api/resource.js";
import { createEngine } from "../engine.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineRequest } from "../pipeline/types.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { genLabels, genPatternMap, genResource, resourceLike } from "../../../test/support/pattern-inputs.js";
import { randomPicker, type Picker } from "../../../test/support/set-operands.js";

const engine = createEngine(fakePorts());
const podMatch = { any: [{ resources: { kinds: ["Pod"] } }] };

function withoutFastPass(policy: CompiledPolicy): CompiledPolicy {
  return policy.language === "kyverno"
    ? { ...policy, rules: policy.rules.map((r) => ({ ...r, fastPass: undefined })) }
    : policy;
}

/** A Pod pattern: wildcard label keys now and then, generated keys and anchors under spec. */
function podPattern(pick: Picker): { pattern: JsonObject; labels: Record<string, string> } {
  const { pattern: labels, labels: podLabels } = genLabels(pick);
  const spec = genPatternMap(pick, 3);
  return {
    pattern: { ...(pick(3) === 0 ? { metadata: { [pick(2) === 0 ? "labels" : "=(labels)"]: labels } } : {}), spec },
    labels: podLabels,
  };
}

function podLike(pick: Picker, pattern: JsonObject, labels: Record<string, string>, name: string): JsonObject {
  const spec: JsonValue = pick(6) === 0 ? genResource(pick, 2) : resourceLike(pick, pattern["spec"] ?? {});
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", ...(pick(4) > 0 ? { labels } : {}) },
    spec,
  };
}

const PRECONDITIONS: JsonObject[] = [
  { all: [{ key: "{{ request.operation || 'BACKGROUND' }}", operator: "NotEquals", value: "DELETE" }] },
  { any: [{ key: "{{ request.object.metadata.name }}", operator: "Equals", value: "web" }] },
  { all: [{ key: "{{ request.object.spec.nothing.here }}", operator: "Equals", value: "x" }] },
];

test("4,000 generated pattern rules and requests: the same results with and without the fast pass", () => {
  const pick = randomPicker(20261125);
  const operations: Operation[] = ["CREATE", "CREATE", "UPDATE", "UPDATE", "DELETE"];
  const statuses = new Map<string, number>();
  let answeredFast = 0;
  let compiled = 0;
  for (let i = 0; i < 4000; i++) {
    const first = podPattern(pick);
    const anyPattern = pick(4) === 0 ? [first.pattern, podPattern(pick).pattern] : undefined;
    const message = pick.from(["must hold", "", "{{ request.object.metadata.name }} fails"]);
    const validate: JsonObject = {
      message,
      ...(pick(2) === 0 ? { failureAction: "Enforce" } : {}),
      ...(anyPattern ? { anyPattern } : { pattern: first.pattern }),
    };
    // Now and then preconditions: met, not met, or failing to evaluate (the fast pass takes a rule only once they are met).
    const k = pick(PRECONDITIONS.length + 2);
    const preconditions = k < PRECONDITIONS.length ? PRECONDITIONS[k] : undefined;
    const outcome = engine.compile(
      clusterPolicy("p", [{ name: "r", match: podMatch, ...(preconditions ? { preconditions } : {}), validate }]),
    );
    if (!outcome.ok) continue;
    compiled++;
    const policy = outcome.policy;
    const slow = withoutFastPass(policy);
    const resource = podLike(pick, first.pattern, first.labels, pick.from(["web", "db"]));
    const operation = pick.from(operations);
    const old =
      operation === "CREATE" ? undefined : pick(2) === 0 ? resource : podLike(pick, first.pattern, first.labels, "web");
    const request = (): EngineRequest => ({
      resource,
      operation,
      namespaceLabels: {},
      ...(old ? { oldResource: old } : {}),
    });
    const got = engine.validate(policy, request()).rules;
    const want = engine.validate(slow, request()).rules;
    const what = `case ${i}: ${JSON.stringify({ preconditions, validate })} ${operation} ${JSON.stringify(resource)}${old ? ` old ${JSON.stringify(old)}` : ""}`;
    assert.deepEqual(got, want, what);
    const fast = kyvernoCompiledRules(policy)[0]?.fastPass;
    if (fast !== undefined && fast(operation === "DELETE" && old ? old : resource, operation, new Map()) !== undefined)
      answeredFast++;
    for (const r of got) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  }
  // The generator reaches what the comparison is about: most policies compile, the fast pass answers
  // often, and every status the full way gives for patterns turns up.
  assert.ok(compiled > 3500, `${compiled} of 4,000 policies compiled`);
  assert.ok(answeredFast > 1000, `the fast pass answered ${answeredFast} requests`);
  for (const status of ["pass", "fail", "skip", "error"])
    assert.ok((statuses.get(status) ?? 0) > 50, `statuses ${JSON.stringify([...statuses])}`);
});
