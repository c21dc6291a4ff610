/**
 * Issue 36, Kyverno's `apply --cluster` loading flags end to end (`npm run test:cluster`), against
 * the real API server of `scripts/cluster.sh up` (no Bylaw in the cluster):
 * - `--cluster-wide-resources`: as Kyverno's fetcher, `-n NS` alone lists that namespace's objects
 *   and leaves cluster-scoped kinds out (with a warning naming them); adding
 *   `--cluster-wide-resources` lists the cluster-scoped kinds too; the flag alone lists only them;
 * - `--show-performance`: Kyverno's "Resource Loading Performance:" summary on stderr, whose
 *   figures are what was listed (objects, list calls, kinds listed side by side), while stdout
 *   keeps the results.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  eventually,
  kubectlOk as kubectlIn,
  run,
  started,
  startCluster,
  tearDown,
  type Cluster,
  type RunResult,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
let cluster: Cluster | undefined;
let dir = "";

const current = (): Cluster => started(cluster);
const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);
const apply = (args: readonly string[]): Promise<RunResult> =>
  run(
    process.execPath,
    [
      join(repoRoot, "bin", "bylaw.js"),
      "apply",
      join(dir, "team-label.yaml"),
      ...args,
      "--cluster",
      "--kubeconfig",
      current().kubeconfig,
      "--output-format",
      "json",
    ],
    120_000,
  );

/** Pods and Namespaces both need the label team. */
const TEAM_LABEL = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: team-label}
spec:
  validationFailureAction: Enforce
  rules:
    - name: team
      match: {any: [{resources: {kinds: [Pod, Namespace]}}]}
      validate:
        message: the label team is required
        pattern: {metadata: {labels: {team: "?*"}}}
`;

const pod = (ns: string, name: string, labels: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}, labels: {${labels}}}
spec: {containers: [{name: c, image: registry.invalid/app:1}]}
`;

/** `resource result` for every result, sorted. */
function rows(r: RunResult): string[] {
  const out = JSON.parse(r.stdout) as { results: { resource: string; result: string }[] };
  return out.results.map((x) => `${x.resource} ${x.result}`).sort();
}

/** The same, for the test's own objects only (the cluster has other Namespaces). */
const ours = (r: RunResult): string[] => rows(r).filter((x) => /flags-(a|b)\b/.test(x));

describe(
  "bylaw apply --cluster: --cluster-wide-resources and --show-performance",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    let namespaces = 0;

    before(async () => {
      cluster = await startCluster(buildTimeoutMs);
      console.log(`# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s`);
      dir = mkdtempSync(join(tmpdir(), "bylaw-apply-cluster-flags-"));
      writeFileSync(join(dir, "team-label.yaml"), TEAM_LABEL);
      await kubectlOk(["create", "namespace", "flags-a"]);
      await kubectlOk(["label", "namespace", "flags-a", "team=a"]);
      await kubectlOk(["create", "namespace", "flags-b"]);
      const pods =
        pod("flags-a", "good", "team: a") +
        "---\n" +
        pod("flags-a", "bad", "app: x") +
        "---\n" +
        pod("flags-b", "other", "team: b");
      // Pods need the namespace's default ServiceAccount, which the controller-manager creates a moment later.
      await eventually("the Pods created", 60_000, async () =>
        (await current().kubectl(["apply", "-f", "-"], pods)).code === 0 ? true : undefined,
      );
      namespaces = (await kubectlOk(["get", "namespaces", "-o", "name"])).trim().split("\n").length;
    });

    after(async () => {
      await tearDown(cluster);
      if (dir !== "") rmSync(dir, { recursive: true, force: true });
    });

    test("-n alone lists the namespace's Pods and leaves Namespaces out, saying so", async () => {
      const r = await apply(["-n", "flags-a"]);
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(rows(r), ["Pod/flags-a/bad fail", "Pod/flags-a/good pass"]);
      assert.match(
        r.stderr,
        /warning: --cluster -n flags-a: cluster-scoped kinds are not listed: Namespace \(--cluster-wide-resources lists them too\)/,
      );
    });

    test("-n with --cluster-wide-resources lists the namespace's Pods and every Namespace", async () => {
      const r = await apply(["-n", "flags-a", "--cluster-wide-resources"]);
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(ours(r), [
        "Namespace/flags-a pass",
        "Namespace/flags-b fail",
        "Pod/flags-a/bad fail",
        "Pod/flags-a/good pass",
      ]);
      // Every Namespace of the cluster is checked; no Pod of another namespace is.
      assert.equal(rows(r).filter((x) => x.startsWith("Namespace/")).length, namespaces);
      assert.equal(rows(r).filter((x) => x.startsWith("Pod/")).length, 2);
      assert.doesNotMatch(r.stderr, /not listed/);
    });

    test("--cluster-wide-resources alone lists only the cluster-scoped kinds, naming the others", async () => {
      const r = await apply(["--cluster-wide-resources"]);
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(ours(r), ["Namespace/flags-a pass", "Namespace/flags-b fail"]);
      assert.equal(rows(r).length, namespaces);
      assert.match(
        r.stderr,
        /--cluster --cluster-wide-resources: only cluster-scoped kinds are listed .*not listed: Pod/,
      );
    });

    test("--show-performance prints Kyverno's loading summary on stderr with what was listed; stdout keeps the results", async () => {
      const r = await apply(["-n", "flags-a", "--cluster-wide-resources", "--show-performance"]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(rows(r).length, namespaces + 2);
      const summary = r.stderr.slice(r.stderr.indexOf("Resource Loading Performance:"));
      assert.match(summary, /^Resource Loading Performance:\n {2}Duration: \d[\d.]*(ns|µs|ms|s)\n/);
      // Two Pods of flags-a and every Namespace; one list call per kind (a page each); the two kinds listed side by side.
      assert.match(
        summary,
        new RegExp(`\\n  Resources loaded: ${namespaces + 2}\\n  API calls: 2\\n  Concurrent workers: 2(\\n|$)`),
      );
      assert.doesNotMatch(summary, /Errors:/);
      assert.doesNotMatch(r.stdout, /Resource Loading Performance/);
      const without = await apply(["-n", "flags-a"]);
      assert.doesNotMatch(without.stderr, /Resource Loading Performance/);
    });
  },
);
