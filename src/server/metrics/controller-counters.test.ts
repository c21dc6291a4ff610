import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import { controllerCounters } from "./controller-counters.js";

const lines = (text: string, prefix: string): string[] => text.split("\n").filter((l) => l.startsWith(prefix));

describe("controllerCounters", () => {
  test("every finished item is a reconcile; requeues and drops are counted beside it, with Kyverno's names and labels", async () => {
    const registry = new Registry();
    const counted = controllerCounters(registry);
    counted("update-request-controller", { result: "done" });
    counted("update-request-controller", { result: "requeued", requeues: 1 });
    counted("update-request-controller", { result: "requeued", requeues: 2 });
    counted("update-request-controller", { result: "dropped" });
    counted("background-scan-controller", { result: "done" });
    const t = await registry.metrics();
    assert.deepEqual(lines(t, "kyverno_controller_reconcile_total{"), [
      'kyverno_controller_reconcile_total{controller_name="update-request-controller"} 4',
      'kyverno_controller_reconcile_total{controller_name="background-scan-controller"} 1',
    ]);
    assert.deepEqual(lines(t, "kyverno_controller_requeue_total{"), [
      'kyverno_controller_requeue_total{controller_name="update-request-controller",num_requeues="1"} 1',
      'kyverno_controller_requeue_total{controller_name="update-request-controller",num_requeues="2"} 1',
    ]);
    assert.deepEqual(lines(t, "kyverno_controller_drop_total{"), [
      'kyverno_controller_drop_total{controller_name="update-request-controller"} 1',
    ]);
    assert.match(t, /^# TYPE kyverno_controller_reconcile_total counter$/m);
  });
});
