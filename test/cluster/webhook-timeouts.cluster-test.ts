/**
 * A policy's own webhook timeout with `--register` (issue 33 §4), end to end against
 * `scripts/cluster.sh up DIR --with-bylaw` (deploy/'s arguments: no --timeout-group): a ClusterPolicy
 * with `webhookTimeoutSeconds: 30` and one with `webhookConfiguration.timeoutSeconds: 5` are Ready
 * and enforced, each through a webhook of its timeout that Bylaw registered on its own, as Kyverno
 * registers one per timeout; when the 30 s policy is deleted its webhook leaves the configuration.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";
import { validatingWebhooks } from "./registered-webhooks.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const policy = (name: string, label: string, timeout: string): string => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
spec:
  background: false
  validationFailureAction: Enforce
${timeout}
  rules:
    - name: need-${label}
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [timeouts]
      validate:
        message: "label ${label} is required"
        pattern:
          metadata:
            labels:
              ${label}: "?*"
`;

const configMap = (labels: Record<string, string>): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "timeouts", labels } });

describe("webhook timeouts are registered as policies ask for them", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["create", "namespace", "timeouts"]);
    await ok(["apply", "-f", "-"], policy("slow", "slow", "  webhookTimeoutSeconds: 30"));
    await ok(["apply", "-f", "-"], policy("quick", "quick", "  webhookConfiguration:\n    timeoutSeconds: 5"));
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("both are Ready, each on a webhook with its timeout, and enforce", async () => {
    for (const name of ["slow", "quick"])
      await eventually(`${name} Ready`, 90_000, async () => {
        const ready = await ok(["get", "cpol", name, "-o", 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
        return ready.trim() === "True" ? true : undefined;
      });
    const hooks = await validatingWebhooks(current());
    const timeouts = new Map(hooks.map((h) => [h.name, h.timeoutSeconds]));
    assert.equal(timeouts.get("validate.bylaw.svc-fail-timeout-30s"), 30, [...timeouts.keys()].join(", "));
    assert.equal(timeouts.get("validate.bylaw.svc-fail-timeout-5s"), 5, [...timeouts.keys()].join(", "));
    // The API server stops at the first webhook that denies: each policy is shown alone.
    const noSlow = await current().kubectl(["create", "--dry-run=server", "-f", "-"], configMap({ quick: "y" }));
    assert.notEqual(noSlow.code, 0);
    assert.match(noSlow.stderr, /validate\.bylaw\.svc-fail-timeout-30s[\s\S]*label slow is required/);
    const noQuick = await current().kubectl(["create", "--dry-run=server", "-f", "-"], configMap({ slow: "y" }));
    assert.notEqual(noQuick.code, 0);
    assert.match(noQuick.stderr, /validate\.bylaw\.svc-fail-timeout-5s[\s\S]*label quick is required/);
    await ok(["create", "--dry-run=server", "-f", "-"], configMap({ slow: "y", quick: "y" }));
  });

  test("deleting the 30 s policy removes its webhook", async () => {
    await ok(["delete", "cpol", "slow"]);
    await eventually("the 30 s webhook gone", 60_000, async () => {
      const hooks = await validatingWebhooks(current());
      return hooks.some((h) => h.name === "validate.bylaw.svc-fail-timeout-30s") ? undefined : true;
    });
  });
});
