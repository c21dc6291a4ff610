/**
 * Bylaw's alerts (issue 37): deploy/monitoring/alerts.rules.yaml passes `promtool check rules` and
 * `promtool test rules` (alerts.test.yaml: each alert fires on its series, with its labels and
 * annotations, and stays quiet on healthy ones), with Debian's promtool (scripts/prometheus.sh;
 * skipped, saying why, where it cannot be fetched); the PrometheusRule of
 * deploy/components/prometheusrule carries exactly the same groups.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { load } from "js-yaml";
import { prometheusBin } from "../support/prometheus.js";
import { at, kubectlMissing, one, render, repoRoot } from "./render.js";

const dir = join(repoRoot(), "deploy", "monitoring");
const bin = await prometheusBin();

function promtool(args: readonly string[]): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      join(bin.ok ? bin.dir : "", "promtool"),
      [...args],
      { cwd: dir, timeout: 60_000 },
      (error, stdout, stderr) =>
        done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, out: stdout + stderr }),
    );
  });
}

describe("deploy/monitoring alerts with promtool", { skip: bin.ok ? false : `no promtool: ${bin.why}` }, () => {
  test("promtool check rules: the rule file is valid", async () => {
    const r = await promtool(["check", "rules", "alerts.rules.yaml"]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS: 7 rules found/);
  });

  test("promtool test rules: every alert is tested and passes", async () => {
    const rules = load(readFileSync(join(dir, "alerts.rules.yaml"), "utf8")) as {
      groups: { rules: { alert: string }[] }[];
    };
    const tested = readFileSync(join(dir, "alerts.test.yaml"), "utf8");
    for (const { alert } of rules.groups.flatMap((g) => g.rules))
      assert.match(tested, new RegExp(`alertname: ${alert}\\n`), `${alert} has a test`);
    const r = await promtool(["test", "rules", "alerts.test.yaml"]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS/);
  });
});

describe("deploy/components/prometheusrule", { skip: kubectlMissing() ?? false }, () => {
  test("its PrometheusRule holds the rule file's groups, unchanged", () => {
    const work = mkdtempSync(join(tmpdir(), "bylaw-prometheusrule-"));
    const deploy = join(repoRoot(), "deploy");
    writeFileSync(
      join(work, "kustomization.yaml"),
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${JSON.stringify(relative(work, join(deploy, "base")))}]\ncomponents: [${JSON.stringify(relative(work, join(deploy, "components", "prometheusrule")))}]\n`,
    );
    const manifests = render(work);
    rmSync(work, { recursive: true, force: true });
    const rule = one(manifests, "PrometheusRule", "bylaw");
    assert.equal(at(rule, "metadata", "namespace"), "bylaw");
    const file = load(readFileSync(join(dir, "alerts.rules.yaml"), "utf8")) as { groups: unknown };
    assert.deepEqual(at(rule, "spec", "groups"), file.groups);
  });
});
