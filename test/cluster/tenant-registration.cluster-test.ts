/**
 * Issue 32 §8 and §9, registration under hostile tenants, end to end (`npm run test:cluster`)
 * against `scripts/cluster.sh up DIR --with-bylaw`: Bylaw registers itself as deploy/ ships it. The
 * user `tenant-a-admin` (kubectl --as) administers tenant-a and may write the namespaced policy
 * kinds there. The rules enforced (tenant-isolation.md's list, continued):
 *
 * - rule 8, one tenant policy cannot break registration for everyone: what the API server would
 *   refuse of the webhook Bylaw registers for a policy (matchConditions its CEL compiler refuses:
 *   an invalid regex or duration literal, a list of mixed types, an expression past its size
 *   limit; a condition name that is not a qualified name) is refused at `kubectl apply`, naming the
 *   field. Such a policy slipped in while the policy webhook was absent is not Ready, with the API
 *   server's reason, and is not registered; the admin ClusterPolicies applied afterwards are
 *   registered and enforced (a NodePort Service, a ServiceAccount and a PVC are denied); and Ready
 *   matches what the stored webhook configurations hold.
 * - rule 9, a namespaced policy's registration covers only its namespace: a tenant Policy on `*`,
 *   one on cluster-scoped kinds with DELETE and a NamespacedValidatingPolicy on every resource
 *   register only webhooks that select tenant-a, with no cluster-scoped rule; a request in tenant-b
 *   or kube-system is never sent to Bylaw for them (its metrics count none); with Bylaw down,
 *   `kubectl delete namespace tenant-a` completes, and Bylaw's own objects (its ClusterRoleBinding
 *   and ClusterRole, guarded by an admin policy on DELETE; its Lease and TLS Secret) can be deleted.
 * Runs alone in `npm run test:cluster` (test/cluster/run.ts): the control write must be answered within 2 s.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  bylawEnv,
  eventually,
  kubectlOk,
  readPids,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
  type RunResult,
} from "./cluster-harness.js";
import { reviewsOf, type Registered, validatingWebhooks } from "./registered-webhooks.js";
import { TENANT_RBAC } from "./tenant-read-policies.js";
import {
  ADMIN_POLICIES,
  conditionPolicy,
  NODEPORT,
  PVC,
  REFUSED_CONDITIONS,
  SERVICE_ACCOUNT,
  CLUSTER_KINDS_POLICY,
  WIDE_POLICIES,
} from "./tenant-registration-policies.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let env: Record<string, string> = {};

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
const asTenant = (args: readonly string[], input?: string): Promise<RunResult> =>
  current().kubectl(["--as", "tenant-a-admin", ...args], input);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `.status.conditions[Ready]` of a kyverno.io policy: status and message. */
async function readyOf(kind: string, name: string, namespace?: string): Promise<{ status: string; message: string }> {
  const json = JSON.parse(
    await ok(["get", kind, name, ...(namespace !== undefined ? ["-n", namespace] : []), "-o", "json"]),
  ) as { status?: { conditions?: { type: string; status: string; message: string }[] } };
  const c = json.status?.conditions?.find((x) => x.type === "Ready");
  return { status: c?.status ?? "", message: c?.message ?? "" };
}

async function ready(kind: string, name: string, namespace?: string): Promise<void> {
  await eventually(`${kind} ${name} Ready`, 60_000, async () =>
    (await readyOf(kind, name, namespace)).status === "True" ? true : undefined,
  );
}

/** Stops Bylaw (SIGTERM to its pid); its Fail webhooks stay registered. */
async function stopBylaw(): Promise<void> {
  const pid = readPids(current().dir).get("bylaw");
  assert.ok(pid !== undefined, "Bylaw's pid");
  process.kill(pid, "SIGTERM");
  await eventually("Bylaw to exit", 30_000, () => {
    try {
      process.kill(pid, 0);
      return Promise.resolve(undefined);
    } catch {
      return Promise.resolve(true);
    }
  });
}

/** A control write in tenant-b: answered (allowed) within 2 s. */
async function control(name: string): Promise<void> {
  const t0 = performance.now();
  await ok(["create", "configmap", name, "-n", "tenant-b", "--from-literal=a=b"]);
  const ms = performance.now() - t0;
  assert.ok(ms < 2000, `the control write in tenant-b took ${ms.toFixed(0)} ms`);
}

const selectsOnly = (w: Registered & { namespaceSelector?: unknown }, ns: string): boolean =>
  JSON.stringify(w.namespaceSelector ?? {}).includes(`"operator":"In","values":["${ns}"]`);

describe(
  "a tenant's policies cannot break or widen Bylaw's registration",
  { timeout: buildTimeoutMs + 20 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
      env = bylawEnv(cluster.dir);
      for (const ns of ["tenant-a", "tenant-b"]) await ok(["create", "namespace", ns]);
      await ok(["apply", "-f", "-"], TENANT_RBAC);
    });

    after(async () => {
      await tearDown(cluster);
    });

    test("rule 8: a Policy whose webhook the API server would refuse is refused at kubectl apply, naming the field", async () => {
      const failures: string[] = [];
      for (const attempt of REFUSED_CONDITIONS) {
        const r = await asTenant(["apply", "-f", "-"], attempt.policy);
        if (r.code === 0) {
          failures.push(`${attempt.what}: stored (${r.stdout.trim()})`);
          await ok(["delete", "-f", "-"], attempt.policy);
        } else if (!/validate-policy\.bylaw\.svc" denied the request.*matchConditions/s.test(r.stderr))
          failures.push(`${attempt.what}: refused for another reason: ${r.stderr.trim().slice(0, 300)}`);
      }
      assert.deepEqual(failures, []);
      await control("control-8a");
    });

    test("rule 8: one slipped in while the policy webhook was absent is not Ready and not registered; admin policies after it are enforced", async () => {
      await stopBylaw();
      await ok([
        "patch",
        "validatingwebhookconfiguration",
        "bylaw-policy-validating-webhook-cfg",
        "--type=json",
        "-p",
        '[{"op":"replace","path":"/webhooks","value":[]}]',
      ]);
      for (const name of ["bad-regex", "bad-list"]) {
        const policy = REFUSED_CONDITIONS.find((a) => a.policy.includes(`"name":"${name}"`))?.policy ?? "";
        const r = await asTenant(["apply", "-f", "-"], policy);
        assert.equal(r.code, 0, `the tenant's ${name} got in while the policy webhook was absent: ${r.stderr}`);
      }
      await asTenant(["apply", "-f", "-"], conditionPolicy("fine", "object.metadata.name != 'x'"));
      await restartBylaw(current());
      await ok(["apply", "-f", "-"], ADMIN_POLICIES);
      for (const name of ["no-nodeport", "no-service-accounts", "no-pvc", "guard-rbac"])
        await ready("clusterpolicy", name);
      for (const [what, object] of [
        ["a NodePort Service", NODEPORT],
        ["a ServiceAccount", SERVICE_ACCOUNT],
        ["a PVC", PVC],
      ] as const) {
        const r = await current().kubectl(["create", "-f", "-"], object);
        assert.notEqual(r.code, 0, `${what} was admitted: the admin policies are not enforced`);
        assert.match(r.stderr, /not allowed/, what);
      }
      await ready("policy", "fine", "tenant-a");
      for (const name of ["bad-regex", "bad-list"]) {
        const r = await eventually(`${name} not Ready with the API server's reason`, 60_000, async () => {
          const s = await readyOf("policy", name, "tenant-a");
          return s.status === "False" ? s : undefined;
        });
        assert.match(r.message, /refuses the webhook.*(matches|expected type|compilation failed)/s, name);
      }
      await control("control-8b");
    });

    test("rule 8: Ready matches the webhook configurations the API server stored", async () => {
      const hooks = await validatingWebhooks(current());
      const names = hooks.map((w) => w.name);
      assert.ok(names.includes("validate.bylaw.svc-fail-finegrained-tenant-a-fine"), names.join(", "));
      for (const bad of ["bad-regex", "bad-list"])
        assert.ok(!names.some((n) => n.includes(bad)), `${bad} is registered: ${names.join(", ")}`);
      const shared = hooks.find((w) => w.name === "validate.bylaw.svc-fail");
      const resources = shared?.rules.flatMap((r) => r.resources) ?? [];
      for (const r of ["services", "serviceaccounts", "persistentvolumeclaims", "clusterroles"])
        assert.ok(resources.includes(r), `${r} is not in the shared webhook: ${resources.join(",")}`);
    });

    test("rule 9: wide tenant policies register only webhooks that select tenant-a, with no cluster-scoped rule", async () => {
      await ok(["label", "namespace", "tenant-a", "team=a"]);
      const r = await asTenant(["apply", "-f", "-"], WIDE_POLICIES);
      assert.equal(r.code, 0, r.stderr);
      await ready("policy", "everything", "tenant-a");
      // Over cluster-scoped kinds: refused at apply, as Kyverno's policy webhook refuses it.
      const refused = await asTenant(["apply", "-f", "-"], CLUSTER_KINDS_POLICY);
      assert.notEqual(refused.code, 0, "a namespaced Policy over cluster-scoped kinds was admitted");
      assert.match(refused.stderr, /Cluster wide resource 'Namespace' not allowed in namespaced policy/);
      const hooks = await eventually("a webhook registering every resource (the tenant's `*`)", 60_000, async () => {
        const all = await validatingWebhooks(current());
        return all.some((w) => w.rules.some((r) => r.resources.includes("*"))) ? all : undefined;
      });
      for (const w of hooks) {
        const wide = w.rules.some((r) => r.resources.includes("*") || r.resources.includes("*/*"));
        const tenant = w.name.includes("tenant-a");
        if (wide) assert.ok(tenant, `${w.name} registers every resource and is not tenant-a's`);
        if (!tenant) continue;
        assert.ok(selectsOnly(w, "tenant-a"), `${w.name} does not select tenant-a alone: ${JSON.stringify(w)}`);
        for (const rule of w.rules) {
          assert.equal(rule.scope, "Namespaced", `${w.name}: ${JSON.stringify(rule)}`);
          for (const res of ["namespaces", "clusterroles", "clusterrolebindings", "nodes"])
            assert.ok(!rule.resources.includes(res), `${w.name} registers ${res}`);
        }
      }
      // Behaviour: enforced in tenant-a, never consulted in tenant-b or kube-system.
      const denied = await current().kubectl(["create", "configmap", "nolabel", "-n", "tenant-a"]);
      assert.notEqual(denied.code, 0, "the tenant's policy is not enforced in tenant-a");
      const port = env["BYLAW_METRICS_PORT"];
      const before = {
        b: await reviewsOf(port, "ConfigMap", "tenant-b"),
        ks: await reviewsOf(port, "ConfigMap", "kube-system"),
      };
      await ok(["create", "configmap", "nolabel", "-n", "tenant-b"]);
      await ok(["create", "configmap", "nolabel-ks", "-n", "kube-system"]);
      await sleep(1000);
      assert.equal(await reviewsOf(port, "ConfigMap", "tenant-b"), before.b, "a tenant-b request was sent to Bylaw");
      assert.equal(
        await reviewsOf(port, "ConfigMap", "kube-system"),
        before.ks,
        "a kube-system request was sent to Bylaw",
      );
      await control("control-9");
    });

    test("rule 9: with Bylaw down, tenant-a's deletion completes and Bylaw's own objects can be deleted", async () => {
      await ok(["label", "clusterrolebinding", "bylaw:admission-controller", "protected=true"]);
      await ok(["label", "clusterrole", "bylaw:admission-controller", "protected=true"]);
      await stopBylaw();
      const del = await current().kubectl(["delete", "namespace", "tenant-a", "--wait=true", "--timeout=120s"]);
      assert.equal(del.code, 0, `kubectl delete namespace tenant-a: ${del.stderr}`);
      const gone = await current().kubectl(["get", "namespace", "tenant-a"]);
      assert.notEqual(gone.code, 0, "tenant-a still exists");
      for (const args of [
        ["delete", "clusterrolebinding", "bylaw:admission-controller"],
        ["delete", "clusterrole", "bylaw:admission-controller"],
        ["delete", "secret", "bylaw-tls", "-n", "bylaw"],
        ["delete", "lease", "--all", "-n", "bylaw"],
      ]) {
        const r = await current().kubectl(args);
        assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stderr}`);
      }
    });
  },
);
