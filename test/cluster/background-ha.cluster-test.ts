/**
 * Issue 35, done when 5 (HA): two replicas of the background component (`--component background
 * --leader-elect`, each its own process and identity, as deploy/ runs them) beside the admission
 * controller, and Kyverno's sync-secrets policy. 200 namespaces are created in a burst; the leader is
 * killed (SIGKILL: its Lease is not released) halfway through. The other replica takes the Lease
 * once it expires and runs the UpdateRequests left: every namespace ends with exactly one generated
 * Secret (`regcred`), none missing, none duplicated, and no UpdateRequest is left; the survivor's
 * /metrics counts what it ran as Kyverno's `kyverno_controller_reconcile_total{controller_name=
 * "update-request-controller"}`, nothing dropped, and `kyverno_updaterequest_total` says none is left.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";
import { startComponent } from "./component-process.js";
import type { ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
const NAMESPACES = 200;
const CHUNK = 10;
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
  token: burst
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

const name = (i: number): string => `burst-${String(i).padStart(3, "0")}`;
const count = (text: string, pattern: RegExp): number => text.split("\n").filter((l) => pattern.test(l)).length;
const leads = (p: ServeProcess): boolean =>
  count(p.output(), /became the leader/) > count(p.output(), /stopped leading/);

/** One `kubectl create` of namespaces [from, to). */
function createChunk(from: number, to: number): Promise<string> {
  const docs = [];
  for (let i = from; i < to; i++) docs.push(`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name(i)}\n`);
  return ok(["create", "-f", "-"], docs.join("---\n"));
}

/** The burst: chunks of CHUNK namespaces, two kubectl at a time; `halfway` runs once half are created. */
async function burst(halfway: () => Promise<void>): Promise<void> {
  const starts = Array.from({ length: NAMESPACES / CHUNK }, (_, i) => i * CHUNK);
  let next = 0;
  let created = 0;
  let killed: Promise<void> | undefined;
  const worker = async (): Promise<void> => {
    while (next < starts.length) {
      const from = starts[next++] ?? 0;
      await createChunk(from, from + CHUNK);
      created += CHUNK;
      if (killed === undefined && created >= NAMESPACES / 2) killed = halfway();
    }
  };
  await Promise.all([worker(), worker()]);
  await killed;
}

interface SecretList {
  readonly items: { readonly metadata: { readonly namespace: string; readonly name: string } }[];
}

/** The Secrets sync-secrets generated, counted per namespace (by its policy label: a copy under any name counts). */
async function generatedPerNamespace(): Promise<Map<string, string[]>> {
  const list = JSON.parse(
    await ok(["get", "secrets", "-A", "-l", "generate.kyverno.io/policy-name=sync-secrets", "-o", "json"]),
  ) as SecretList;
  const per = new Map<string, string[]>();
  for (const s of list.items)
    per.set(s.metadata.namespace, [...(per.get(s.metadata.namespace) ?? []), s.metadata.name]);
  return per;
}

describe(
  "HA: the background component's leader killed during a burst of 200 namespaces",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      await ok(["apply", "-f", "-"], SECRET_GRANTS);
      await ok(["apply", "-f", "-"], REGCRED);
      await eventually(
        "the background controller's ServiceAccount to create Secrets",
        60_000,
        async () =>
          (
            await current().kubectl([
              "auth",
              "can-i",
              "create",
              "secrets",
              "--as",
              "system:serviceaccount:bylaw:bylaw-background-controller",
              "-A",
            ])
          ).stdout.trim() === "yes",
      );
      // Each replica serves /metrics on a free port (the survivor's update-request-controller counts are read).
      const replica = (): ReturnType<typeof startComponent> =>
        startComponent(current(), "background", ["--metrics-port", "0"]);
      running.push(await replica(), await replica());
      await ok(["apply", "-f", "-"], SYNC_SECRETS);
      await eventually(
        "sync-secrets Ready",
        60_000,
        async () =>
          (await ok([
            "get",
            "cpol",
            "sync-secrets",
            "-o",
            "jsonpath={.status.conditions[?(@.type=='Ready')].status}",
          ])) === "True",
      );
    });
    after(async () => {
      for (const p of running) await p.kill("SIGKILL");
      await tearDown(cluster);
    });

    test("every namespace ends with exactly one regcred, none missing, none duplicated", async () => {
      const leader = await eventually("one replica to lead", 60_000, () =>
        Promise.resolve(running.find((p) => leads(p))),
      );
      const other = running.find((p) => p !== leader);
      assert.ok(other !== undefined && !leads(other), "exactly one replica leads");
      const started = performance.now();
      await burst(async () => {
        await leader.kill("SIGKILL");
        console.log(`# the leader killed ${((performance.now() - started) / 1000).toFixed(1)} s into the burst`);
      });
      console.log(`# ${NAMESPACES} namespaces created in ${((performance.now() - started) / 1000).toFixed(1)} s`);

      // The Lease passes once it has not been renewed for its 15 s; then the UpdateRequests left run.
      await eventually("the other replica to lead", 60_000, () => Promise.resolve(leads(other)));
      const per = await eventually(`a regcred in each of the ${NAMESPACES} namespaces`, 150_000, async () => {
        const got = await generatedPerNamespace();
        const missing = Array.from({ length: NAMESPACES }, (_, i) => name(i)).filter((n) => !got.has(n));
        if (missing.length > 0) throw new Error(`${missing.length} missing, e.g. ${missing.slice(0, 5).join(", ")}`);
        return got;
      });
      console.log(
        `# all ${NAMESPACES} generated ${((performance.now() - started) / 1000).toFixed(1)} s after the burst began`,
      );
      const duplicated = [...per].filter(([, names]) => names.length !== 1);
      assert.deepEqual(duplicated, [], "one generated Secret per namespace");
      for (let i = 0; i < NAMESPACES; i++) assert.deepEqual(per.get(name(i)), ["regcred"]);
      await eventually("no UpdateRequest left (each Completed and deleted)", 60_000, async () =>
        (await ok(["get", "updaterequests", "-n", "bylaw", "-o", "name"])).trim() === "" ? true : undefined,
      );
      assert.doesNotMatch(other.output(), /an UpdateRequest failed/);
      // What the survivor ran, on its /metrics as Kyverno's controller counter.
      const port = /metrics on :(\d+)/.exec(other.output())?.[1];
      const metrics = await (await fetch(`http://127.0.0.1:${port ?? ""}/metrics`)).text();
      const reconciled =
        /^kyverno_controller_reconcile_total\{controller_name="update-request-controller"\} (\d+)$/m.exec(metrics);
      assert.ok(reconciled !== null && Number(reconciled[1]) > 0, "the survivor's reconciles on /metrics");
      console.log(`# the survivor reconciled ${reconciled[1]} UpdateRequests`);
      assert.doesNotMatch(metrics, /^kyverno_controller_drop_total\{/m, "no request dropped");
      // Kyverno's gauge of the UpdateRequests in its namespace: none left, as kubectl saw above.
      await eventually("kyverno_updaterequest_total 0 on the survivor's /metrics", 30_000, async () => {
        const now = await (await fetch(`http://127.0.0.1:${port ?? ""}/metrics`)).text();
        const left = /^kyverno_updaterequest_total\{resource_namespace="bylaw"\} (\d+)$/m.exec(now)?.[1];
        if (left !== "0") throw new Error(`kyverno_updaterequest_total: ${left ?? "no sample"}`);
        return true;
      });
    });
  },
);
