import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "../../engine/index.js";
import { reconcileListFailure } from "./existing-list-failure.js";

const FORBIDDEN =
  'forbidden (403): configmaps is forbidden: User "system:serviceaccount:bylaw:bylaw-background-controller" cannot list resource "configmaps" in API group "" at the cluster scope';

const note = (event: JsonObject | undefined): string => {
  const n = event?.["note"];
  return typeof n === "string" ? n : "";
};

const base = {
  policy: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "copy-cm", namespace: "", uid: "u-1" },
  rules: ["copy"],
  list: { verb: "list", kind: "v1/ConfigMap", namespace: "" },
  error: FORBIDDEN,
  previous: undefined,
  nowMs: Date.parse("2026-11-30T12:00:00Z"),
  instance: "bylaw-0",
  suffix: "abc123",
};

describe("reconcileListFailure", () => {
  test("a first refusal is a PolicyError Event on the policy naming the verb, the kind and the ServiceAccount", () => {
    const d = reconcileListFailure(base);
    const e = d.event;
    assert.ok(e !== undefined);
    assert.equal(e["reason"], "PolicyError");
    assert.equal(e["type"], "Warning");
    assert.equal(e["reportingController"], "kyverno-generate");
    assert.deepEqual(e["regarding"], {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      name: "copy-cm",
      uid: "u-1",
    });
    assert.equal((e["metadata"] as { namespace: string }).namespace, "default");
    assert.equal(e["related"], undefined);
    const text = note(e);
    assert.match(
      text,
      /^policy copy-cm\/copy error: cannot list the existing triggers of kind v1\/ConfigMap in every namespace: /,
    );
    assert.ok(text.includes("system:serviceaccount:bylaw:bylaw-background-controller"), text);
    assert.equal(d.state.attempts, 1);
    assert.equal(d.state.retryAtMs, base.nowMs + 30_000);
  });

  test("the same refusal again writes no second Event and backs off (30 s doubling, at most 10 min)", () => {
    const first = reconcileListFailure(base);
    const second = reconcileListFailure({ ...base, previous: first.state, nowMs: first.state.retryAtMs });
    assert.equal(second.event, undefined);
    assert.equal(second.state.attempts, 2);
    assert.equal(second.state.retryAtMs, first.state.retryAtMs + 60_000);
    let state = second.state;
    for (let i = 0; i < 10; i++) state = reconcileListFailure({ ...base, previous: state, nowMs: 0 }).state;
    assert.equal(state.retryAtMs, 10 * 60_000);
  });

  test("a different failure is reported again, from the first retry delay", () => {
    const first = reconcileListFailure(base);
    const other = reconcileListFailure({
      ...base,
      list: { verb: "list", kind: "v1/Namespace", namespace: "" },
      previous: first.state,
    });
    assert.ok(other.event !== undefined);
    assert.match(note(other.event), /kind v1\/Namespace/);
    assert.equal(other.state.attempts, 1);
  });

  test("a namespaced Policy's Event is in its namespace and names where the list was refused", () => {
    const d = reconcileListFailure({
      ...base,
      policy: { apiVersion: "kyverno.io/v1", kind: "Policy", name: "p", namespace: "team-a", uid: "" },
      list: { verb: "list", kind: "Secret", namespace: "team-a" },
      rules: [],
    });
    assert.equal((d.event?.["metadata"] as { namespace: string }).namespace, "team-a");
    assert.deepEqual(d.event?.["regarding"], {
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      name: "p",
      namespace: "team-a",
    });
    assert.match(
      note(d.event),
      /^policy p error: cannot list the existing triggers of kind Secret in namespace team-a: /,
    );
  });

  test("a failure that is not a list still says what could not be done", () => {
    const d = reconcileListFailure({
      policy: base.policy,
      rules: base.rules,
      error: "no answer from the API server: timeout",
      previous: undefined,
      nowMs: base.nowMs,
      instance: base.instance,
      suffix: base.suffix,
    });
    assert.match(d.message, /^cannot find the existing triggers: no answer from the API server: timeout/);
  });

  test("a CEL policy's Event regards it under its own apiVersion", () => {
    const d = reconcileListFailure({
      ...base,
      policy: { apiVersion: "policies.kyverno.io/v1", kind: "GeneratingPolicy", name: "g", namespace: "", uid: "u-2" },
    });
    assert.deepEqual(d.event?.["regarding"], {
      apiVersion: "policies.kyverno.io/v1",
      kind: "GeneratingPolicy",
      name: "g",
      uid: "u-2",
    });
  });
});
