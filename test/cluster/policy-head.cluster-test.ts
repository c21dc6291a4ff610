/**
 * A compiled policy's document is the policy's own (ADR 0005 head, issue 34 §1), end to end with
 * kubectl against one `scripts/cluster.sh up DIR --with-bylaw`: a NamespacedValidatingPolicy that
 * reads globalContext, created while Bylaw was down (its policy webhook deleted, the emergency
 * switch), is tenant-checked on its real spec when Bylaw loads it: not Ready with the field and the
 * reason, and not enforced. (Before, the load-time tenant check read a kyverno-shaped stand-in
 * document that held none of the policy's expressions, so the policy was served.)
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  eventually,
  kubectlOk,
  processRunning,
  readPids,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
  type RunResult,
} from "./cluster-harness.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
const kubectl = (args: readonly string[], input?: string): Promise<RunResult> => current().kubectl(args, input);

const PEEK = `apiVersion: policies.kyverno.io/v1
kind: NamespacedValidatingPolicy
metadata:
  name: peek
  namespace: team
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  variables:
    - name: stolen
      expression: 'globalContext.Get("admin-entry", "")'
  validations:
    - expression: "false"
      messageExpression: "'read: ' + string(variables.stolen)"
`;

interface ConditionStatus {
  ready?: boolean;
  message?: string;
}

async function conditionStatus(resource: string, name: string, ns: string): Promise<ConditionStatus | undefined> {
  const r = await kubectl(["get", resource, name, "-n", ns, "-o", "json"]);
  if (r.code !== 0) return undefined;
  return (JSON.parse(r.stdout) as { status?: { conditionStatus?: ConditionStatus } }).status?.conditionStatus;
}

describe(
  "the policy head: a CEL policy's own document is what Bylaw checks",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
      await ok(["create", "namespace", "team"]);
    });

    after(() => tearDown(cluster));

    test("a NamespacedValidatingPolicy reading globalContext, created while Bylaw was down, is not Ready with the field and not enforced", async () => {
      const pid = readPids(current().dir).get("bylaw");
      assert.ok(pid !== undefined && processRunning(pid), "Bylaw runs");
      process.kill(pid, "SIGTERM");
      await eventually("Bylaw to exit", 30_000, async () => (processRunning(pid) ? undefined : true));
      // The emergency switch: with Bylaw down its policy webhook (Fail) refuses every policy write.
      await ok(["delete", "validatingwebhookconfiguration", "bylaw-policy-validating-webhook-cfg"]);
      await ok(["apply", "-f", "-"], PEEK);
      const shipped = readFileSync(join(repoRoot, "deploy", "base", "validating-webhook.yaml"), "utf8")
        .split(/^---$/m)
        .find((d) => d.includes("name: bylaw-policy-validating-webhook-cfg"));
      assert.ok(shipped !== undefined, "deploy/base/validating-webhook.yaml ships the policy-validating configuration");
      await ok(["apply", "-f", "-"], shipped);
      await restartBylaw(current(), { wait: true });
      const status = await eventually("nvpol peek not ready", 60_000, async () => {
        const s = await conditionStatus("nvpol", "peek", "team");
        return s?.ready === false && (s.message ?? "") !== "" ? s : undefined;
      });
      console.log(`# nvpol peek: ${status.message ?? ""}`);
      assert.match(
        status.message ?? "",
        /spec\.variables\[0\]\.expression: a namespaced policy \(namespace "team"\) reaches only its own namespace: globalContext is not allowed/,
      );
      // Not enforced: served, it would deny every ConfigMap created in team.
      const created = await kubectl(["create", "configmap", "free", "-n", "team", "--from-literal=a=b"]);
      assert.equal(created.code, 0, created.stderr);
    });
  },
);
