import { test } from "node:test";
import assert from "node:assert/strict";
import { monitoringLoki, monitoringSettings } from "./monitoring-flags.js";

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

test("--loki: with --component monitoring, the kube-bench command's Loki options, and --loki-events with its filters", async () => {
  const none = await monitoringLoki({}, ["admission"]);
  assert.deepEqual(none, { ok: true, value: undefined });
  const notMonitoring = await monitoringLoki({ loki: "http://loki:3100" }, ["admission"]);
  assert.match(notMonitoring.ok ? "" : notMonitoring.error, /give --component monitoring too/);
  const noUrl = await monitoringLoki({ "loki-events": true }, ["monitoring"]);
  assert.match(noUrl.ok ? "" : noUrl.error, /need --loki URL/);
  const filterAlone = await monitoringLoki({ loki: "http://loki:3100", "loki-event-match": ["type=Warning"] }, [
    "monitoring",
  ]);
  assert.match(filterAlone.ok ? "" : filterAlone.error, /filter --loki-events: give it too/);
  const badEncoding = await monitoringLoki({ loki: "http://loki:3100", "loki-encoding": "xml" }, ["monitoring"]);
  assert.match(badEncoding.ok ? "" : badEncoding.error, /--loki-encoding xml: use protobuf or json/);
  const badMatch = await monitoringLoki(
    { loki: "http://loki:3100", "loki-events": true, "loki-event-match": ["node=x"] },
    ["monitoring"],
  );
  assert.match(badMatch.ok ? "" : badMatch.error, /^--loki-event-match "node=x"/);
  const full = await monitoringLoki(
    {
      loki: "http://loki:3100",
      "loki-tenant": "security",
      "loki-encoding": "json",
      "loki-label": ["cluster=prod"],
      "loki-events": true,
      "loki-event-match": ["type=Warning"],
    },
    ["monitoring"],
  );
  assert.ok(full.ok && full.value !== undefined);
  assert.equal(full.value.connection.url, "http://loki:3100/loki/api/v1/push");
  assert.equal(full.value.connection.tenant, "security");
  assert.equal(full.value.encoding, "json");
  assert.deepEqual(full.value.extraLabels, { cluster: "prod" });
  assert.deepEqual(full.value.events?.labels, { job: "kubernetes-event", cluster: "prod" });
  assert.equal(full.value.events?.filter.match.length, 1);
});
