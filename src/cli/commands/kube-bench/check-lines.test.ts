import { test } from "node:test";
import assert from "node:assert/strict";
import { checkLines } from "./check-lines.js";
import type { KubeBenchControls } from "./kube-bench-results.js";

const controls = (over: Partial<KubeBenchControls["tests"][number]["results"][number]>): KubeBenchControls => ({
  id: "4",
  version: "cis-1.10",
  text: "Worker Node Security Configuration",
  nodeType: "node",
  totals: { PASS: 0, FAIL: 1, WARN: 0, INFO: 0 },
  tests: [
    {
      section: "4.1",
      desc: "Worker Node Configuration Files",
      results: [
        {
          testNumber: "4.1.9",
          testDesc: "permissions (Automated)",
          audit: "stat",
          type: "",
          remediation: "chmod 600",
          status: "FAIL",
          actualValue: "",
          expectedResult: "600",
          scored: true,
          reason: "",
          ...over,
        },
      ],
    },
  ],
});

const options = { node: "n1", job: "kube-bench", extraLabels: { cluster: "prod" }, timestampNs: 1000n };

test("a check is a line, the dashboard's labels and structured metadata (empty fields left out)", () => {
  assert.deepEqual(checkLines([controls({})], options), [
    {
      labels: {
        cluster: "prod",
        job: "kube-bench",
        kube_bench_type: "node",
        kube_bench_target: "node",
        kube_bench_syntax: "cis-1.10",
        kube_bench_node_name: "n1",
        kube_bench_gb_cis_id: "4.1.9",
        kube_bench_gb_tg_test_major_section: "4.1",
        kube_bench_gb_tg_test_minor_status: "FAIL",
        kube_bench_gb_tg_test_minor_scored: "true",
      },
      entry: {
        timestampNs: 1000n,
        line: "[FAIL] 4.1.9 permissions (Automated)",
        metadata: {
          kube_bench_test_desc: "permissions (Automated)",
          kube_bench_audit: "stat",
          kube_bench_remediation: "chmod 600",
          kube_bench_expected_result: "600",
          kube_bench_section_desc: "Worker Node Configuration Files",
          kube_bench_controls_text: "Worker Node Security Configuration",
        },
      },
    },
  ]);
});

test("a manual check carries its type as a label; an --loki-label cannot replace the scheme's own; long values are capped", () => {
  const [line] = checkLines([controls({ type: "manual", actualValue: "x".repeat(20_000) })], {
    ...options,
    extraLabels: { job: "other", kube_bench_node_name: "spoofed" },
  });
  assert.equal(line?.labels["kube_bench_gb_tg_test_minor_type"], "manual");
  assert.equal(line?.labels["job"], "kube-bench");
  assert.equal(line?.labels["kube_bench_node_name"], "n1");
  assert.equal(line?.entry.metadata?.["kube_bench_actual_value"]?.length, 8 * 1024 + 1);
});
