/**
 * "Ready" across processes (issue 35 §7, ADR 0018): the admission controller writes policy status,
 * and the background and cleanup components run in processes of their own (their own
 * ServiceAccounts and Leases, as deploy/ runs them). With kubectl against a real API server:
 * - a generate policy is not Ready while no background component was ever started (the flag named),
 *   turns Ready once one holds its Lease, and its rule runs: the admission process stores the work as
 *   UpdateRequests and the background process generates;
 * - killed (SIGKILL), the background component is named in the policy's condition once its Lease has
 *   not been renewed within its duration; work admitted meanwhile waits and is done when it is back;
 *   stopped (SIGTERM), it releases its Lease and the policy is not Ready at once;
 * - a cleanup policy is refused at kubectl apply while no cleanup component was ever started, and
 *   admitted once one runs; killed, the admission leader sets it not Ready naming the component,
 *   and the cleanup component makes it Ready again when it is back;
 * - a reports component (--leader-elect) stopped with SIGTERM exits promptly and releases its Lease
 *   (the open bug of ADR 0018; not seen again here).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";
import { startComponent } from "./component-process.js";
import type { ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
const running: ServeProcess[] = [];

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

/** What Kyverno's docs tell users to add so the background controller may clone Secrets. */
const SECRET_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:secrets:manage
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [""]
    resources: [secrets]
    verbs: [get, list, watch, create, update, delete]
`;

const REGCRED = `apiVersion: v1
kind: Secret
metadata:
  name: regcred
  namespace: default
type: Opaque
stringData:
  token: first
`;

const SYNC_SECRETS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: sync-secrets
spec:
  rules:
    - name: sync-image-pull-secret
      match:
        any:
          - resources:
              kinds: [Namespace]
      generate:
        apiVersion: v1
        kind: Secret
        name: regcred
        namespace: "{{request.object.metadata.name}}"
        synchronize: true
        clone:
          namespace: default
          name: regcred
`;

/** What the cleanup component needs to delete Pods (deploy/ grants it no delete by default). */
const POD_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:cleanup:pods
  labels:
    rbac.kyverno.io/aggregate-to-cleanup-controller: "true"
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get, list, watch, delete]
`;

const CLEANUP = `apiVersion: kyverno.io/v2
kind: ClusterCleanupPolicy
metadata:
  name: sweep-pods
spec:
  schedule: "*/5 * * * *"
  match:
    any:
      - resources:
          kinds: [Pod]
          namespaces: [sweep]
`;

interface Condition {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** sync-secrets' Ready condition once it has `status` (what else it must say: `message`). */
function ready(status: "True" | "False", message: RegExp | undefined, timeoutMs: number): Promise<Condition> {
  return eventually(`sync-secrets Ready ${status} ${String(message ?? "")}`, timeoutMs, async () => {
    const object = JSON.parse(await ok(["get", "cpol", "sync-secrets", "-o", "json"])) as {
      status?: { conditions?: (Condition & { type: string })[] };
    };
    const c = object.status?.conditions?.find((x) => x.type === "Ready");
    if (c === undefined || c.status !== status) throw new Error(`Ready is ${JSON.stringify(c)}`);
    if (message !== undefined && !message.test(c.message)) throw new Error(`Ready says ${c.message}`);
    return c;
  });
}

async function regcredIn(namespace: string, timeoutMs: number): Promise<void> {
  await eventually(`regcred generated in ${namespace}`, timeoutMs, async () =>
    (await current().kubectl(["get", "secret", "regcred", "-n", namespace, "-o", "name"])).code === 0
      ? true
      : undefined,
  );
}

describe(
  "Ready across processes: the background and cleanup components",
  { timeout: buildTimeoutMs + 15 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      await ok(["apply", "-f", "-"], SECRET_GRANTS);
      await ok(["apply", "-f", "-"], REGCRED);
      await ok(["apply", "-f", "-"], POD_GRANTS);
    });
    after(async () => {
      for (const p of running) await p.kill("SIGKILL");
      await tearDown(cluster);
    });

    test("a generate policy: not Ready before the background component ever ran, naming the flag", async () => {
      await ok(["apply", "-f", "-"], SYNC_SECRETS);
      const c = await ready("False", /generate-controller-as/, 30_000);
      assert.match(c.message, /rule sync-image-pull-secret: Bylaw does not run generate rules here/);
    });

    test("the background component in its own process: Ready, and the admission process hands it the work", async () => {
      running.push(await startComponent(current(), "background"));
      await ready("True", undefined, 60_000);
      await ok(["create", "namespace", "team-1"]);
      await regcredIn("team-1", 60_000);
    });

    test("killed: not Ready once its Lease expires, naming the component; work admitted meanwhile is done when it is back", async () => {
      const killed = running.pop();
      await killed?.kill("SIGKILL");
      const c = await ready("False", /background component/, 60_000);
      assert.match(
        c.message,
        /rule sync-image-pull-secret: Bylaw's background component, which runs generate rules, is not running \(its Lease bylaw\/bylaw-background-controller has not been renewed within its 15s duration\), so nothing would be generated/,
      );
      await ok(["create", "namespace", "team-2"]);
      // Stored as an UpdateRequest for the background component; nothing runs it yet.
      await new Promise((r) => setTimeout(r, 3000));
      assert.notEqual((await current().kubectl(["get", "secret", "regcred", "-n", "team-2"])).code, 0);
      assert.match(await ok(["get", "updaterequests", "-n", "bylaw", "-o", "name"]), /updaterequest/);

      running.push(await startComponent(current(), "background"));
      await ready("True", undefined, 60_000);
      await regcredIn("team-2", 60_000);
    });

    test("stopped: it releases its Lease and the policy is not Ready within seconds", async () => {
      const stopped = running.pop();
      assert.equal(await stopped?.stop(), 0);
      const c = await ready("False", /background component/, 15_000);
      assert.match(c.message, /its Lease bylaw\/bylaw-background-controller has no holder/);
    });

    test("a cleanup policy: refused at kubectl apply until the cleanup component has run, then admitted", async () => {
      const refused = await current().kubectl(["apply", "-f", "-"], CLEANUP);
      assert.notEqual(refused.code, 0, "refused while no cleanup component ever ran");
      assert.match(refused.stderr, /denied the request/);

      running.push(await startComponent(current(), "cleanup"));
      await eventually("the cleanup policy admitted", 60_000, async () =>
        (await current().kubectl(["apply", "-f", "-"], CLEANUP)).code === 0 ? true : undefined,
      );
      await eventually("the cleanup component's Ready on it", 60_000, async () =>
        (await ok(["get", "clustercleanuppolicy", "sweep-pods", "-o", "jsonpath={.status.conditions[0].status}"])) ===
        "True"
          ? true
          : undefined,
      );
    });

    test("the cleanup component killed: its policies are not Ready, naming it, until it is back", async () => {
      const killed = running.pop();
      await killed?.kill("SIGKILL");
      const down = await eventually("sweep-pods not Ready, naming the cleanup component", 60_000, async () => {
        const c = await ok(["get", "clustercleanuppolicy", "sweep-pods", "-o", "jsonpath={.status.conditions}"]);
        return c.includes("ComponentNotRunning") ? c : undefined;
      });
      assert.match(
        down,
        /Bylaw's cleanup component, which runs cleanup policies, is not running \(its Lease bylaw\/bylaw-cleanup-controller has not been renewed within its 15s duration\), so nothing is cleaned up/,
      );
      assert.match(down, /"status":"False"/);
      running.push(await startComponent(current(), "cleanup"));
      await eventually("sweep-pods Ready again", 60_000, async () =>
        (await ok(["get", "clustercleanuppolicy", "sweep-pods", "-o", "jsonpath={.status.conditions}"])).includes(
          '"status":"True"',
        )
          ? true
          : undefined,
      );
    });

    test("a reports component stopped with SIGTERM exits promptly, releasing its Lease", async () => {
      const reports = await startComponent(current(), "reports");
      await eventually("the reports Lease held", 60_000, async () =>
        (await ok(["get", "lease", "bylaw-reports-controller", "-n", "bylaw", "-o", "jsonpath={.spec.holderIdentity}"]))
          .length > 0
          ? true
          : undefined,
      );
      const started = performance.now();
      const exit = await Promise.race([
        reports.stop(),
        new Promise<"hung">((r) => setTimeout(() => r("hung"), 15_000)),
      ]);
      if (exit === "hung") await reports.kill("SIGKILL");
      assert.equal(exit, 0, `exited ${String(exit)} after SIGTERM:\n${reports.output().slice(-2000)}`);
      assert.ok(performance.now() - started < 10_000, "exited within 10 s");
      assert.equal(
        await ok(["get", "lease", "bylaw-reports-controller", "-n", "bylaw", "-o", "jsonpath={.spec.holderIdentity}"]),
        "",
      );
    });
  },
);
