/** A PolicySource's loads and rejections reach the metrics. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import type { PolicyLoadError, PolicySnapshot, PolicySource, PolicySourceEvent } from "../types.js";
import { bindPolicySource } from "./bind-policy-source.js";
import { createMetrics } from "./create-metrics.js";
import { compiled, snapshot, validatePolicy } from "../../../test/support/metrics-policies.js";

function fakeSource(current: PolicySnapshot, error?: PolicyLoadError) {
  const listeners = new Set<(e: PolicySourceEvent) => void>();
  const source: PolicySource = {
    current: () => current,
    lastError: () => error,
    onChange: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    close: async () => undefined,
  };
  return { source, emit: (e: PolicySourceEvent) => listeners.forEach((l) => l(e)), listeners };
}

const read = async (r: Registry, name: string) =>
  /^(\S+) (\S+)$/m.exec(
    (await r.metrics())
      .split("\n")
      .filter((l) => l.startsWith(name))
      .join("\n"),
  )?.[2];
const error: PolicyLoadError = { at: 0, message: "bad", problems: [] };

test("the current set counts at bind time, then each event; unsubscribing stops it", async () => {
  const registry = new Registry();
  const metrics = createMetrics({ registry, version: "v" });
  const s1 = snapshot([compiled(validatePolicy("a", {}, ["ConfigMap"]))], 1);
  const { source, emit, listeners } = fakeSource(s1);
  const unbind = bindPolicySource(metrics, source);
  assert.equal(await read(registry, "bylaw_policy_set_healthy"), "1");
  // A source that re-announces its first load does not count the policies twice.
  emit({ kind: "loaded", snapshot: s1 });
  emit({ kind: "rejected", error });
  assert.equal(await read(registry, "bylaw_policy_set_healthy"), "0");
  assert.equal(await read(registry, "bylaw_policy_load_errors_total"), "1");
  emit({ kind: "loaded", snapshot: snapshot([], 2), previous: s1 });
  assert.equal(await read(registry, "bylaw_policy_set_healthy"), "1");
  assert.match(
    await registry.metrics(),
    /policy_name="a",policy_change_type="created"\} 1\n.*policy_name="a",policy_change_type="deleted"\} 1/,
  );
  unbind();
  assert.equal(listeners.size, 0);
});

test("a source with no good set yet and a standing error shows unhealthy", async () => {
  const registry = new Registry();
  const metrics = createMetrics({ registry, version: "v" });
  bindPolicySource(metrics, fakeSource(snapshot([], 0), error).source);
  assert.equal(await read(registry, "bylaw_policy_set_healthy"), "0");
  assert.equal(await read(registry, "bylaw_policy_load_errors_total"), "1");
  assert.doesNotMatch(await registry.metrics(), /kyverno_policy_changes_total\{/);
});
