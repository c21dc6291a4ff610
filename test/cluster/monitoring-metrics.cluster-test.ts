/**
 * Issue 37 part B, done-when 2 and 3 (metrics half), end to end against `scripts/cluster.sh up DIR
 * --with-bylaw` with kubectl and a real Prometheus (scripts/prometheus.sh) scraping Bylaw's
 * /metrics. Bylaw runs `--component admission --component monitoring` (and the reports
 * controller, which writes the PolicyReports), as the bylaw ServiceAccount bound to the shipped
 * `bylaw:monitoring` ClusterRole (deploy/base/rbac/monitoring.yaml) and nothing more for it:
 * - a Pod failing an Audit policy: its PolicyReport row is in Prometheus' `policy_report_result`
 *   within 10 s of `kubectl run`; labelling the Pod (the fix) clears the `fail` series;
 * - trivy-operator's CRDs and example reports applied: their severity counts are in Prometheus;
 * - every panel of the Grafana dashboards in deploy/monitoring/dashboards returns series from that
 *   Prometheus (a ClusterPolicyReport written as another producer would, a mutate policy, a second
 *   failing Pod and the trivy reports fill what the panels read).
 * Skipped, saying why, when Debian's prometheus package cannot be fetched.
 * Runs alone in `npm run test:cluster` (test/cluster/run.ts): a row must reach Prometheus within 10 s.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import {
  bylawEnv,
  crdsEstablished,
  eventually,
  kubectlOk,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";
import { MONITORING_BINDING } from "./monitoring-binding.js";
import { prometheusBin, startPrometheus, type Prometheus } from "../support/prometheus.js";

const buildTimeoutMs = 90 * 60_000;
const fixtures = join(process.cwd(), "test", "fixtures", "monitoring", "trivy-operator");
const ARGS = "--reports-controller --component admission --component monitoring";
let cluster: Cluster | undefined;
let prometheus: Prometheus | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
const prom = (): Prometheus => {
  if (prometheus === undefined) throw new Error("Prometheus did not start (see the before hook)");
  return prometheus;
};

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team
spec:
  validationFailureAction: Audit
  background: false
  rules:
    - name: check-team
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [shop]
      validate:
        message: "label 'team' is required"
        pattern:
          metadata:
            labels:
              team: "?*"
`;

/**
 * trivy-operator's example reports, made valid for its CRDs: the example (an envtest fixture) has
 * `<HASH>` label placeholders and an owner without uid, and predates fields the CRD now requires
 * (`report.os`, each vulnerability's `publishedDate` and `lastModifiedDate`); the counts are kept.
 */
function trivyExample(file: string, namespace: string): string {
  const report = load(readFileSync(join(fixtures, "examples", file), "utf8")) as {
    metadata: { namespace?: string; labels?: Record<string, string>; ownerReferences?: unknown };
    report: { os?: unknown; vulnerabilities?: Record<string, unknown>[] };
  };
  delete report.metadata.ownerReferences;
  report.metadata.namespace = namespace;
  report.metadata.labels = Object.fromEntries(
    Object.entries(report.metadata.labels ?? {}).filter(([, v]) => !v.includes("<HASH>")),
  );
  if (report.report.vulnerabilities !== undefined) {
    report.report.os ??= { family: "alpine", name: "3.13" };
    for (const v of report.report.vulnerabilities) {
      v["publishedDate"] ??= "2021-01-01T00:00:00Z";
      v["lastModifiedDate"] ??= "2021-01-01T00:00:00Z";
    }
  }
  return JSON.stringify(report);
}

const skip = await prometheusBin().then((b) => (b.ok ? false : `no Prometheus: ${b.why}`));

describe(
  "the monitoring component on /metrics, scraped by a real Prometheus",
  { skip, timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true, bylawArgs: ARGS });
      const base = readFileSync(join(current().dir, "bylaw-base.yaml"), "utf8");
      await ok(["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component=monitoring"], base);
      await ok(["apply", "-f", "-"], MONITORING_BINDING);
      await ok(["apply", "--server-side", "-f", join(fixtures, "crds")]);
      await crdsEstablished(current(), [
        "crd/vulnerabilityreports.aquasecurity.github.io",
        "crd/configauditreports.aquasecurity.github.io",
      ]);
      // Started again so that its informers find the trivy CRDs at once (not after a backoff).
      await restartBylaw(current(), { extraArgs: ARGS });
      prometheus = await startPrometheus([`127.0.0.1:${bylawEnv(current().dir)["BYLAW_METRICS_PORT"]}`]);
      await ok(["create", "namespace", "shop"]);
      await ok(["apply", "-f", "-"], POLICY);
      await eventually("the policy to be Ready", 60_000, async () =>
        (await ok(["get", "clusterpolicy", "require-team", "-o", "jsonpath={.status.conditions[0].status}"])) === "True"
          ? true
          : undefined,
      );
    });
    after(async () => {
      await prometheus?.close();
      await tearDown(cluster);
    });

    test("every report kind is read with the shipped grant (source_up 1), openreports aside when its CRDs are absent", async () => {
      const up = await eventually("bylaw_monitoring_source_up in Prometheus", 60_000, async () => {
        const r = await prom().query("bylaw_monitoring_source_up");
        return r.length === 8 ? r : undefined;
      });
      const byResource = new Map(up.map((s) => [s.metric["resource"] ?? "", s.value]));
      for (const r of ["policyreports.wgpolicyk8s.io", "clusterpolicyreports.wgpolicyk8s.io"])
        assert.equal(byResource.get(r), 1, r);
      for (const r of [
        "vulnerabilityreports",
        "configauditreports",
        "clustervulnerabilityreports",
        "clusterconfigauditreports",
      ])
        assert.equal(byResource.get(`${r}.aquasecurity.github.io`), 1, r);
    });

    test("a Pod failing an Audit policy is in policy_report_result within 10 s; labelling it clears the fail series", async () => {
      const createdAt = performance.now();
      await ok(["run", "web", "-n", "shop", "--image", "nginx:1.27"]);
      const failing =
        'policy_report_result{namespace="shop",policy="require-team",kind="Pod",name="web",status="fail"}';
      const rows = await eventually("the fail row in Prometheus", 30_000, async () => {
        const r = await prom().query(failing);
        return r.length === 1 ? r : undefined;
      });
      const seconds = (performance.now() - createdAt) / 1000;
      assert.ok(seconds <= 10, `the row reached Prometheus after ${seconds.toFixed(1)} s`);
      const uid = await ok(["get", "pod", "web", "-n", "shop", "-o", "jsonpath={.metadata.uid}"]);
      assert.deepEqual(
        { ...rows[0]?.metric, __name__: undefined, instance: undefined, job: undefined },
        {
          __name__: undefined,
          instance: undefined,
          job: undefined,
          namespace: "shop",
          rule: "check-team",
          policy: "require-team",
          report: uid,
          kind: "Pod",
          name: "web",
          status: "fail",
          // severity and category are empty: Prometheus keeps no empty label.
          source: "kyverno",
        },
      );
      assert.equal(rows[0]?.value, 1);
      const summary = await prom().query(`policy_report_summary{namespace="shop",name="${uid}",status="Fail"}`);
      assert.equal(summary[0]?.value, 1);

      await ok(["label", "pod", "web", "-n", "shop", "team=shop"]);
      await eventually("the fail series to leave Prometheus", 30_000, async () =>
        (await prom().query(failing)).length === 0 ? true : undefined,
      );
      const passing = await eventually("the pass row", 30_000, async () => {
        const r = await prom().query('policy_report_result{namespace="shop",name="web",status="pass"}');
        return r.length === 1 ? r : undefined;
      });
      assert.equal(passing[0]?.metric["policy"], "require-team");
    });

    test("trivy-operator's example reports applied: their counts by severity are in Prometheus", async () => {
      await ok(["create", "namespace", "trivy-demo"]);
      await ok(["apply", "-f", "-"], trivyExample("vulnerabilityreport.yaml", "trivy-demo"));
      await ok(["apply", "-f", "-"], trivyExample("pod-configauditreport.yaml", "trivy-demo"));
      const vulns = await eventually("trivy_image_vulnerabilities in Prometheus", 30_000, async () => {
        const r = await prom().query('trivy_image_vulnerabilities{namespace="trivy-demo"}');
        return r.length === 5 ? r : undefined;
      });
      const bySeverity = (
        series: readonly { metric: Record<string, string>; value: number }[],
      ): Record<string, number> =>
        Object.fromEntries(series.map((s): [string, number] => [s.metric["severity"] ?? "", s.value]));
      assert.deepEqual(bySeverity(vulns), { Critical: 0, High: 12, Medium: 6, Low: 0, Unknown: 9 });
      assert.equal(vulns[0]?.metric["resource_kind"], "ReplicaSet");
      assert.equal(vulns[0]?.metric["resource_name"], "coredns-558bd4d5db");
      assert.equal(vulns[0]?.metric["container_name"], "coredns");
      const audits = await eventually("trivy_resource_configaudits in Prometheus", 30_000, async () => {
        const r = await prom().query('trivy_resource_configaudits{namespace="trivy-demo"}');
        return r.length === 5 ? r : undefined;
      });
      assert.deepEqual(bySeverity(audits), { Critical: 0, High: 1, Medium: 3, Low: 9, Unknown: 0 });
      assert.equal(audits[0]?.metric["resource_name"], "my-pod");
      // Deleting a report clears its series.
      await ok(["delete", "vulnerabilityreport", "-n", "trivy-demo", "--all"]);
      await eventually("the vulnerability series to leave Prometheus", 30_000, async () =>
        (await prom().query('trivy_image_vulnerabilities{namespace="trivy-demo"}')).length === 0 ? true : undefined,
      );
    });

    test("every dashboard panel's PromQL returns series from the Prometheus these tests filled", async () => {
      await ok(["apply", "-f", "-"], MUTATE_POLICY);
      await ok(["apply", "-f", "-"], CLUSTER_REPORT);
      await ok(["apply", "-f", "-"], trivyExample("vulnerabilityreport.yaml", "trivy-demo"));
      await ok(["run", "bad", "-n", "shop", "--image", "nginx:1.27"]);
      await ok(["create", "configmap", "settings", "-n", "shop"]);
      const empty: string[] = [];
      for (const { dashboard, panel, expr } of panelQueries()) {
        const found = await eventually(`${dashboard} / ${panel}`, 30_000, async () =>
          (await prom().query(expr)).length > 0 ? true : undefined,
        ).catch(() => false);
        if (!found) empty.push(`${dashboard} / ${panel}: ${expr}`);
      }
      assert.deepEqual(empty, [], "panels whose query returned no series");
    });
  },
);

const MUTATE_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: label-configmaps
spec:
  rules:
    - name: add-team
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [shop]
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              team: shop
`;

/** A ClusterPolicyReport as another producer (here, shaped as Kyverno writes them) would write it. */
const CLUSTER_REPORT = JSON.stringify({
  apiVersion: "wgpolicyk8s.io/v1alpha2",
  kind: "ClusterPolicyReport",
  metadata: { name: "other-producer-namespaces", labels: { "app.kubernetes.io/managed-by": "kyverno" } },
  scope: { apiVersion: "v1", kind: "Namespace", name: "shop" },
  summary: { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 },
  results: [
    {
      policy: "require-ns-owner",
      rule: "check-owner",
      result: "fail",
      severity: "critical",
      category: "Multi-Tenancy",
      source: "kyverno",
      message: "label owner is required",
      scored: true,
      timestamp: { seconds: 1700000000, nanos: 0 },
    },
  ],
});

/** Every target of every panel of deploy/monitoring/dashboards/*.json. */
function panelQueries(): { dashboard: string; panel: string; expr: string }[] {
  const dir = join(process.cwd(), "deploy", "monitoring", "dashboards");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .flatMap((file) => {
      const d = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
        title: string;
        panels: { title: string; targets: { expr: string }[] }[];
      };
      return d.panels.flatMap((p) => p.targets.map((t) => ({ dashboard: d.title, panel: p.title, expr: t.expr })));
    });
}
