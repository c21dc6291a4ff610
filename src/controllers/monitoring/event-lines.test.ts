import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { eventCondition, eventEntry, eventPasses, type EventFilter } from "./event-lines.js";

const EVENT: JsonObject = {
  apiVersion: "v1",
  kind: "Event",
  metadata: { name: "web.1", namespace: "shop" },
  involvedObject: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop" },
  reason: "PolicyViolation",
  message: "policy require-team/check-team fail: label 'team' is required",
  source: { component: "kyverno-admission" },
  type: "Warning",
  count: 1,
};

const problem = (c: ReturnType<typeof eventCondition>): string => (typeof c === "string" ? c : "");

function filter(match: string[], drop: string[] = []): EventFilter {
  const parse = (flag: string, specs: string[]) =>
    specs.map((s) => {
      const c = eventCondition(flag, s);
      if (typeof c === "string") assert.fail(c);
      return c;
    });
  return { match: parse("--loki-event-match", match), drop: parse("--loki-event-drop", drop) };
}

test("the line is the Event's JSON with clusterName, at second resolution, so | json finds type, reason and message", () => {
  const entry = eventEntry(EVENT, 1_795_312_113_042);
  assert.equal(entry.timestampNs, 1_795_312_113_000_000_000n);
  const line = JSON.parse(entry.line) as Record<string, unknown>;
  assert.equal(line["type"], "Warning");
  assert.equal(line["reason"], "PolicyViolation");
  assert.equal(line["message"], EVENT["message"]);
  assert.deepEqual(line["involvedObject"], EVENT["involvedObject"]);
  assert.equal(line["clusterName"], "");
});

test("filters as event-exporter's rules: every match condition (unanchored RE2) and no drop condition", () => {
  assert.ok(eventPasses(EVENT, filter([])));
  assert.ok(eventPasses(EVENT, filter(["type=Warning", "namespace=^shop$", "reason=Violation"])));
  assert.ok(!eventPasses(EVENT, filter(["type=Normal"])));
  assert.ok(!eventPasses(EVENT, filter(["namespace=^kube-"])));
  assert.ok(eventPasses(EVENT, filter(["kind=Pod", "component=kyverno"])));
  assert.ok(!eventPasses(EVENT, filter([], ["reason=PolicyViolation|PolicyApplied"])));
  assert.ok(eventPasses(EVENT, filter([], ["namespace=kube-system"])));
});

test("a condition that is not FIELD=REGEX, names an unknown field or does not compile is an error naming the flag", () => {
  assert.match(
    problem(eventCondition("--loki-event-match", "Warning")),
    /--loki-event-match "Warning": use FIELD=REGEX/,
  );
  assert.match(problem(eventCondition("--loki-event-drop", "node=x")), /FIELD one of namespace, reason, type/);
  assert.match(problem(eventCondition("--loki-event-match", "reason=(")), /does not compile/);
});
