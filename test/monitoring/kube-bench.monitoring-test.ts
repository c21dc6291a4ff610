/**
 * `bylaw kube-bench` end to end (issue 37, done-when 1), the real binary against the real
 * Pushgateway and VictoriaLogs (Loki's push API): both kube-bench samples (with totals, and the
 * --nototals array) pushed for two nodes; kube_bench_info has the four labels; a second push for one
 * node replaces only that node's series; the Loki streams carry the dashboard's labels, and the
 * audit and remediation text arrives as structured metadata. Prometheus is not started here: the
 * Pushgateway's /metrics is what Prometheus scrapes (with honor_labels), so it is read directly.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { tempTree } from "../support/temp-dir.js";
import { pushgatewayMetrics, sampleLines, startSinks, waitForLogs, type Sinks } from "../support/monitoring-sinks.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const samples = resolve(repoRoot, "..", "shared", "fixtures", "monitoring", "kube-bench");
const withTotals = join(samples, "result.json");
const noTotals = join(samples, "result_no_totals.json");

let sinks: Sinks;
before(async () => {
  sinks = await startSinks();
});
after(async () => {
  await sinks?.down();
});

function bylaw(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(repoRoot, "bin", "bylaw.js"), ...args], (error, stdout, stderr) =>
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    );
  });
}

const push = (file: string, node: string, encoding = "protobuf") =>
  bylaw([
    "kube-bench",
    file,
    "--node",
    node,
    "--pushgateway",
    sinks.pushgatewayUrl,
    "--loki",
    sinks.victoriaLogsUrl + "/insert/loki/api/v1/push",
    "--loki-tenant",
    "3",
    "--loki-encoding",
    encoding,
    "--loki-label",
    "cluster=e2e",
  ]);

const info = (node: string, type: string, syntax: string) =>
  `kube_bench_info{instance="${node}",job="kube-bench",kube_bench_node_name="${node}",kube_bench_syntax="${syntax}",kube_bench_target="${type}",kube_bench_type="${type}"} 1`;

test("both samples for two nodes; a second push for one node replaces only that node; Loki lines carry the labels", async () => {
  const a = await push(withTotals, "node-a");
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stderr, /pushed node node-a to the Pushgateway \(job kube-bench\)/);
  assert.match(a.stderr, /sent 3 check lines to Loki/);
  const b = await push(noTotals, "node-b", "json");
  assert.equal(b.code, 0, b.stderr);

  const first = sampleLines(await pushgatewayMetrics(sinks), "kube_bench_info").sort();
  assert.deepEqual(
    first,
    [
      info("node-a", "controlplane", "1.5"),
      info("node-a", "etcd", "1.15"),
      info("node-a", "master", "1.5"),
      info("node-b", "controlplane", "1.5"),
      info("node-b", "etcd", "1.15"),
      info("node-b", "master", "1.5"),
    ].sort(),
  );
  const checks = sampleLines(await pushgatewayMetrics(sinks), "kube_bench_checks");
  assert.ok(
    checks.includes(
      `kube_bench_checks{instance="node-a",job="kube-bench",kube_bench_node_name="node-a",kube_bench_syntax="1.5",kube_bench_target="master",kube_bench_type="master",status="FAIL"} 12`,
    ),
    checks.join("\n"),
  );

  // node-a runs again, now on a node target with a newer benchmark: its old series go, node-b's stay.
  const rerun = tempTree({
    "node.json": JSON.stringify({
      Controls: [
        {
          id: "4",
          version: "cis-1.10",
          text: "Worker Node Security Configuration",
          node_type: "node",
          tests: [
            {
              section: "4.1",
              desc: "Worker Node Configuration Files",
              results: [
                {
                  test_number: "4.1.9",
                  test_desc:
                    "If the kubelet config.yaml configuration file is being used validate permissions set to 600 or more restrictive (Automated)",
                  audit:
                    "/bin/sh -c 'if test -e /var/lib/kubelet/config.yaml; then stat -c permissions=%a /var/lib/kubelet/config.yaml; fi' ",
                  type: "",
                  remediation: "chmod 600 /var/lib/kubelet/config.yaml\n",
                  status: "FAIL",
                  actual_value: "permissions=644",
                  scored: true,
                  expected_result: "permissions has permissions 644, expected 600 or more restrictive",
                },
              ],
            },
          ],
          total_pass: 0,
          total_fail: 1,
          total_warn: 0,
          total_info: 0,
        },
      ],
      Totals: { total_pass: 0, total_fail: 1, total_warn: 0, total_info: 0 },
    }),
  });
  const again = await push(join(rerun, "node.json"), "node-a");
  assert.equal(again.code, 0, again.stderr);
  const second = sampleLines(await pushgatewayMetrics(sinks), "kube_bench_info").sort();
  assert.deepEqual(
    second,
    [
      info("node-a", "node", "cis-1.10"),
      info("node-b", "controlplane", "1.5"),
      info("node-b", "etcd", "1.15"),
      info("node-b", "master", "1.5"),
    ].sort(),
  );

  // Loki: every check of every push, with the dashboard's labels (tenant 3), text in structured metadata.
  const rows = await waitForLogs(sinks, `{job="kube-bench", cluster="e2e"}`, { count: 7, accountId: 3 });
  assert.equal(rows.length, 7);
  const failing = rows.find((r) => r["kube_bench_gb_cis_id"] === "4.1.9");
  assert.ok(failing, "the rerun's check arrived");
  assert.equal(
    failing["_msg"],
    "[FAIL] 4.1.9 If the kubelet config.yaml configuration file is being used validate permissions set to 600 or more restrictive (Automated)",
  );
  for (const [k, v] of Object.entries({
    kube_bench_node_name: "node-a",
    kube_bench_type: "node",
    kube_bench_target: "node",
    kube_bench_syntax: "cis-1.10",
    kube_bench_gb_tg_test_major_section: "4.1",
    kube_bench_gb_tg_test_minor_status: "FAIL",
    kube_bench_gb_tg_test_minor_scored: "true",
    kube_bench_remediation: "chmod 600 /var/lib/kubelet/config.yaml\n",
    kube_bench_actual_value: "permissions=644",
  }))
    assert.equal(failing[k], v, k);
  assert.match(failing["_stream"] ?? "", /kube_bench_gb_cis_id="4\.1\.9"/);
  assert.doesNotMatch(failing["_stream"] ?? "", /kube_bench_remediation/, "long text is not a stream label");
  const manual = rows.filter((r) => r["kube_bench_gb_cis_id"] === "3.1.1");
  assert.deepEqual(
    manual
      .map((r) => [r["kube_bench_node_name"], r["kube_bench_gb_tg_test_minor_type"], r["kube_bench_reason"]])
      .sort(),
    [
      ["node-a", "manual", "Test marked as a manual test"],
      ["node-b", "manual", "Test marked as a manual test"],
    ],
  );
  const etcd = rows.find((r) => r["kube_bench_gb_cis_id"] === "2.1" && r["kube_bench_node_name"] === "node-b");
  const sample = JSON.parse(readFileSync(noTotals, "utf8")) as { tests: { results: { actual_value: string }[] }[] }[];
  assert.equal(etcd?.["kube_bench_actual_value"], sample[1]?.tests[0]?.results[0]?.actual_value);
});

test("the Pushgateway down: the push fails with exit 1 and says where and why", async () => {
  await sinks.stop("pushgateway");
  try {
    const r = await bylaw([
      "kube-bench",
      withTotals,
      "--node",
      "n",
      "--pushgateway",
      sinks.pushgatewayUrl,
      "--timeout",
      "5s",
    ]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /bylaw kube-bench: pushing to the Pushgateway at 127\.0\.0\.1:\d+ failed: connect ECONNREFUSED/,
    );
  } finally {
    await sinks.start("pushgateway");
  }
});

test("--schedule: kube-bench's command runs at start and at each tick, each run replacing the node's push; a failed run is reported and the loop goes on; SIGTERM stops it", async () => {
  const dir = tempTree({ "out.json": readFileSync(withTotals, "utf8") });
  const out = join(dir, "out.json");
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, "bin", "bylaw.js"),
      "kube-bench",
      "--schedule",
      "@every 1s",
      "--node",
      "node-s",
      "--pushgateway",
      sinks.pushgatewayUrl,
      "--",
      "cat",
      out,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  const until = async (what: string, ok: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 100; i++) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.fail(`${what} did not happen; stderr:\n${stderr}`);
  };
  const pushes = () => (stderr.match(/pushed node node-s to the Pushgateway/g) ?? []).length;
  try {
    await until("two pushes", () => pushes() >= 2);
    const first = sampleLines(await pushgatewayMetrics(sinks), "kube_bench_info").filter((l) => l.includes("node-s"));
    assert.equal(first.length, 3, first.join("\n"));

    // The next run writes no kube-bench JSON: reported, nothing pushed, the loop goes on.
    writeFileSync(out, "kube-bench: config not found\n");
    await until("a failed run reported", () => /the output of cat .*out\.json/.test(stderr));
    const before = pushes();
    // Then kube-bench runs against a worker node: the node's series are replaced by the new ones.
    writeFileSync(out, readFileSync(noTotals, "utf8").replace(/"node_type": ?"master"/g, '"node_type":"node"'));
    await until("a push after the failure", () => pushes() > before);
    const after = sampleLines(await pushgatewayMetrics(sinks), "kube_bench_info").filter((l) => l.includes("node-s"));
    assert.ok(
      after.some((l) => l.includes('kube_bench_type="node"')) &&
        !after.some((l) => l.includes('kube_bench_type="master"')),
      after.join("\n"),
    );
  } finally {
    child.kill("SIGTERM");
  }
  assert.equal(await exited, 0, stderr);
});
