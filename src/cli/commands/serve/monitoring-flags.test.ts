import { test } from "node:test";
import assert from "node:assert/strict";
import { monitoringSettings } from "./monitoring-flags.js";

test("--monitoring-labels: detailed by default, simple, or a list; an unknown label is refused naming the allowed ones", () => {
  const detailed = monitoringSettings({});
  assert.equal(detailed.ok && detailed.value.labels.length, 10);
  assert.equal(detailed.ok && detailed.value.maxSeries, 10000);
  const list = monitoringSettings({ "monitoring-labels": "namespace,policy,status" });
  assert.deepEqual(list.ok && list.value.labels, ["namespace", "policy", "status"]);
  const bad = monitoringSettings({ "monitoring-labels": "namespace,pod" });
  assert.match(
    bad.ok ? "" : bad.error,
    /^--monitoring-labels must be detailed, simple or a comma-separated list of namespace, rule/,
  );
  assert.match(bad.ok ? "" : bad.error, /\(got "pod"\)$/);
  const max = monitoringSettings({ "monitoring-max-series": "0" });
  assert.equal(max.ok ? "" : max.error, '--monitoring-max-series must be a positive whole number (got "0")');
});
