/**
 * `--kyverno-webhook-names` (issue 33 §4), end to end against `scripts/cluster.sh up DIR --with-bylaw`
 * run as deploy/components/kyverno-webhook-names configures it (its empty configurations and its
 * grants, applied by an admin as a migration from Kyverno would): Bylaw refuses to start while a
 * configuration by Kyverno's name is Kyverno's, naming it and what to do, and leaves it untouched;
 * once it is gone, Bylaw registers kyverno-resource-validating-webhook-cfg (validate.kyverno.svc-fail)
 * and kyverno-policy-validating-webhook-cfg (validate-policy.kyverno.svc), and kubectl shows those
 * names when a policy denies.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { tmpdir } from "node:os";
import { execFileSync } from "node:child_process";
import {
  bylawEnv,
  eventually,
  kubectlOk,
  processRunning,
  readPids,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";
import { repoRoot } from "../deploy/render.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let rendered = "";

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

/** deploy/base with the component, rendered by kubectl kustomize (as an overlay would). */
function renderWithComponent(): string {
  const root = repoRoot();
  const dir = mkdtempSync(join(tmpdir(), "bylaw-kyverno-names-"));
  try {
    writeFileSync(
      join(dir, "kustomization.yaml"),
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources:",
        `  - ${relative(dir, join(root, "deploy", "base"))}`,
        "components:",
        `  - ${relative(dir, join(root, "deploy", "components", "kyverno-webhook-names"))}`,
        "",
      ].join("\n"),
    );
    return execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const kyvernoOwned = JSON.stringify({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: "kyverno-resource-validating-webhook-cfg", labels: { "webhook.kyverno.io/managed-by": "kyverno" } },
  webhooks: [],
});

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: need-team
spec:
  background: false
  rules:
    - name: team
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [names]
      validate:
        failureAction: Enforce
        message: "label team is required"
        pattern:
          metadata:
            labels:
              team: "?*"
`;

const configMap = (labels: Record<string, string>): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "names", labels } });

const bylawLog = (): string => readFileSync(join(current().dir, "logs", "bylaw.log"), "utf8");

describe("--kyverno-webhook-names: Kyverno's webhook names", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["create", "namespace", "names"]);
    rendered = renderWithComponent();
    // The component's grants (get and patch on Kyverno's names) and its empty configurations; then a
    // configuration by Kyverno's name that Kyverno owns, in place of the component's.
    await ok(["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component=admission-controller"], rendered);
    await ok(
      ["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component=webhook-configuration"],
      rendered,
    );
    await ok(["delete", "validatingwebhookconfiguration", "kyverno-resource-validating-webhook-cfg"]);
    await ok(["create", "-f", "-"], kyvernoOwned);
    // Bylaw's own names go, as a cluster moving to Kyverno's names would remove them.
    for (const [kind, name] of [
      ["validatingwebhookconfiguration", "bylaw-resource-validating-webhook-cfg"],
      ["validatingwebhookconfiguration", "bylaw-policy-validating-webhook-cfg"],
      ["mutatingwebhookconfiguration", "bylaw-resource-mutating-webhook-cfg"],
    ] as const)
      await ok(["delete", kind, name]);
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("Bylaw refuses to start while Kyverno's configuration exists, names it and what to do, and leaves it untouched", async () => {
    await restartBylaw(current(), { wait: false, extraArgs: "--kyverno-webhook-names" });
    await eventually("Bylaw to exit", 60_000, () => {
      const pid = readPids(current().dir).get("bylaw");
      return Promise.resolve(pid !== undefined && !processRunning(pid) ? true : undefined);
    });
    const log = bylawLog();
    assert.match(
      log,
      /bylaw serve: --kyverno-webhook-names: ValidatingWebhookConfiguration kyverno-resource-validating-webhook-cfg exists and is not Bylaw's \(labels: webhook\.kyverno\.io\/managed-by=kyverno;[^\n]*uninstall Kyverno first/,
      log,
    );
    const stored = JSON.parse(
      await ok(["get", "validatingwebhookconfiguration", "kyverno-resource-validating-webhook-cfg", "-o", "json"]),
    ) as { metadata: { labels?: Record<string, string> }; webhooks?: unknown[] };
    assert.deepEqual(stored.metadata.labels, { "webhook.kyverno.io/managed-by": "kyverno" });
    assert.equal(stored.webhooks?.length ?? 0, 0);
  });

  test("once Kyverno's is gone, Bylaw registers by Kyverno's names and kubectl shows them when a policy denies", async () => {
    await ok(["delete", "validatingwebhookconfiguration", "kyverno-resource-validating-webhook-cfg"]);
    await ok(
      ["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component=webhook-configuration"],
      rendered,
    );
    await restartBylaw(current(), { wait: false, extraArgs: "--kyverno-webhook-names" });
    const port = bylawEnv(current().dir)["BYLAW_PORT"];
    await eventually("the policy webhook registered by Kyverno's name", 90_000, async () => {
      const hook = await ok([
        "get",
        "validatingwebhookconfiguration",
        "kyverno-policy-validating-webhook-cfg",
        "-o",
        "jsonpath={.webhooks[0].name} {.webhooks[0].clientConfig.url}",
      ]);
      return hook.trim() === `validate-policy.kyverno.svc https://127.0.0.1:${port}/policyvalidate` ? true : undefined;
    });
    await ok(["apply", "-f", "-"], policy);
    await eventually("need-team Ready", 90_000, async () => {
      const ready = await ok([
        "get",
        "cpol",
        "need-team",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
      ]);
      return ready.trim() === "True" ? true : undefined;
    });
    const names = await ok([
      "get",
      "validatingwebhookconfiguration",
      "kyverno-resource-validating-webhook-cfg",
      "-o",
      "jsonpath={.webhooks[*].name}",
    ]);
    assert.deepEqual(names.trim().split(" "), ["validate.kyverno.svc-fail"]);
    const denied = await current().kubectl(["create", "--dry-run=server", "-f", "-"], configMap({}));
    assert.notEqual(denied.code, 0);
    assert.match(
      denied.stderr,
      /admission webhook "validate\.kyverno\.svc-fail" denied the request: [\s\S]*label team is required/,
    );
    await ok(["create", "--dry-run=server", "-f", "-"], configMap({ team: "a" }));
    // The policy webhook answers by Kyverno's name too.
    const refused = await current().kubectl(
      ["apply", "--dry-run=server", "-f", "-"],
      policy.replace("name: need-team", "name: broken").replace(/ {8}pattern:[\s\S]*$/, ""),
    );
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /admission webhook "validate-policy\.kyverno\.svc" denied the request/);
  });
});
