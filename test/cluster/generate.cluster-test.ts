/**
 * Generate rules in a cluster (issue 35 §2), end to end against `scripts/cluster.sh up DIR
 * --with-bylaw` with kubectl, as Kyverno's docs show them:
 * - sync-secrets (clone with synchronize): a new Namespace gets the `regcred` Secret, with Kyverno's
 *   generate.kyverno.io labels; a changed source is copied again; a deleted copy comes back;
 * - data with synchronize: deleting the trigger removes its generated object;
 * - deleting a policy deletes what its synchronized rules made;
 * - generateExisting: objects that exist when the policy arrives are triggers too;
 * - the work is durable: an UpdateRequest written while Bylaw is down is run when it is back;
 * - a namespaced Policy never writes outside its namespace: checked after substitution, the
 *   request fails with the reason and nothing is written;
 * - a grant removed after a generateExisting policy was admitted shows on the policy: Ready False
 *   naming the refused list, and a PolicyError Event when the existing triggers are listed again.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  eventually,
  kubectlOk,
  readPids,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";
import { GENERATE_AS_BACKGROUND, GENERATE_AS_BACKGROUND_ARGS } from "./generate-as-background.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

/** What Kyverno's docs tell users to add so the background controller may clone Secrets. */
const GENERATE_ARGS = { extraArgs: GENERATE_AS_BACKGROUND_ARGS };

const SECRET_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:secrets:manage
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [""]
    resources: [secrets, configmaps]
    verbs: [get, list, watch, create, update, delete]
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

const REGCRED = `apiVersion: v1
kind: Secret
metadata:
  name: regcred
  namespace: default
type: Opaque
stringData:
  token: first
`;

/** data with synchronize, on ConfigMaps labelled derive=yes in apps (Ignore: created while Bylaw is down too). */
const DERIVE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: derive
spec:
  failurePolicy: Ignore
  rules:
    - name: derived-config
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [apps]
              selector:
                matchLabels:
                  derive: "yes"
      generate:
        apiVersion: v1
        kind: ConfigMap
        name: "{{request.object.metadata.name}}-derived"
        namespace: apps
        synchronize: true
        data:
          data:
            from: "{{request.object.metadata.name}}"
`;

/**
 * generateExisting: a ConfigMap in ops for each Namespace labelled team, the existing ones included.
 * Ignore, as derive: no Fail webhook takes ConfigMaps, so one can be made while Bylaw is down.
 */
const TEAM_CONFIG = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: team-config
spec:
  failurePolicy: Ignore
  rules:
    - name: team-config
      match:
        any:
          - resources:
              kinds: [Namespace]
              selector:
                matchLabels:
                  team: "?*"
      generate:
        generateExisting: true
        apiVersion: v1
        kind: ConfigMap
        name: "team-{{request.object.metadata.name}}"
        namespace: ops
        data:
          data:
            team: "{{request.object.metadata.labels.team}}"
`;

/** A grant on a kind `view` does not read, aggregated to the background controller, removed by the last test. */
const PRIORITY_CLASS_GRANT = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: bgscan:priorityclasses
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [scheduling.k8s.io]
    resources: [priorityclasses]
    verbs: [get, list, watch]
`;

const PRIORITY_CLASS = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: bgscan-low
value: 10
`;

/** generateExisting on PriorityClasses: a ConfigMap in ops for each. */
const PC_CONFIG = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: pc-config
spec:
  failurePolicy: Ignore
  rules:
    - name: pc-config
      match:
        any:
          - resources:
              kinds: [scheduling.k8s.io/v1/PriorityClass]
      generate:
        generateExisting: true
        apiVersion: v1
        kind: ConfigMap
        name: "pc-{{request.object.metadata.name}}"
        namespace: ops
        data:
          data:
            value: "{{to_string(request.object.value)}}"
`;

/**
 * A tenant's Policy that would write where a trigger's label says: in a plain generate the policy
 * webhook refuses the variable namespace (Kyverno's check); through foreach only the value after
 * substitution shows it.
 */
const tenantPolicy = (foreach: boolean): string => `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: copy-out
  namespace: tenant-a
spec:
  rules:
    - name: copy-out
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              selector:
                matchLabels:
                  target: "?*"
      generate:
${
  foreach
    ? `        foreach:
          - list: "[request.object.metadata.labels.target]"
            apiVersion: v1
            kind: ConfigMap
            name: stolen
            namespace: "{{element}}"
            data:
              data:
                x: "y"`
    : `        apiVersion: v1
        kind: ConfigMap
        name: stolen
        namespace: "{{request.object.metadata.labels.target}}"
        data:
          data:
            x: "y"`
}
`;

const configMap = (name: string, namespace: string, labels: Record<string, string>): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data: { a: "b" } });

/** A ConfigMap's data.from, or undefined while it does not exist. */
async function derivedFrom(name: string): Promise<string | undefined> {
  const r = await current().kubectl(["get", "configmap", name, "-n", "apps", "-o", "jsonpath={.data.from}"]);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** The Secret's decoded `token`, or undefined while it does not exist. */
async function tokenIn(namespace: string): Promise<string | undefined> {
  const r = await current().kubectl(["get", "secret", "regcred", "-n", namespace, "-o", "jsonpath={.data.token}"]);
  if (r.code !== 0) return undefined;
  return Buffer.from(r.stdout.trim(), "base64").toString("utf8");
}

describe("generate rules in a cluster", { timeout: buildTimeoutMs + 15 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["apply", "-f", "-"], GENERATE_AS_BACKGROUND);
    await restartBylaw(current(), GENERATE_ARGS);
    await ok(["apply", "-f", "-"], SECRET_GRANTS);
    await ok(["apply", "-f", "-"], REGCRED);
    for (const ns of ["apps", "ops", "tenant-a", "tenant-b"]) await ok(["create", "namespace", ns]);
    await ok(["label", "namespace", "tenant-a", "team=alpha"]);
    await ok(["apply", "-f", "-"], SYNC_SECRETS);
    // The policy's webhook rules are registered once Bylaw has read it: a namespace made then gets the Secret.
    await eventually("sync-secrets to clone into a new namespace", 120_000, async () => {
      const ns = `probe-${Date.now()}`;
      await ok(["create", "namespace", ns]);
      return (await eventuallyToken(ns, 20_000)) === "first" ? true : undefined;
    });
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("sync-secrets: kubectl create ns → the regcred Secret appears there, with Kyverno's labels", async () => {
    await ok(["create", "namespace", "team-a"]);
    assert.equal(await eventuallyToken("team-a", 60_000), "first");
    const labels = JSON.parse(
      await ok(["get", "secret", "regcred", "-n", "team-a", "-o", "jsonpath={.metadata.labels}"]),
    ) as Record<string, string>;
    assert.equal(labels["app.kubernetes.io/managed-by"], "kyverno");
    assert.equal(labels["generate.kyverno.io/policy-name"], "sync-secrets");
    assert.equal(labels["generate.kyverno.io/rule-name"], "sync-image-pull-secret");
    assert.equal(labels["generate.kyverno.io/trigger-kind"], "Namespace");
    assert.equal(labels["generate.kyverno.io/source-kind"], "Secret");
    assert.equal(labels["generate.kyverno.io/source-namespace"], "default");
    // The work is done: no UpdateRequest is left behind.
    await eventually("the UpdateRequests to be deleted once completed", 60_000, async () =>
      (await ok(["get", "updaterequests.kyverno.io", "-n", "bylaw", "-o", "name"])).trim() === "" ? true : undefined,
    );
  });

  test("sync-secrets: changing the source updates every copy", async () => {
    await ok(["create", "namespace", "team-b"]);
    assert.equal(await eventuallyToken("team-b", 60_000), "first");
    await ok([
      "patch",
      "secret",
      "regcred",
      "-n",
      "default",
      "--type=merge",
      "-p",
      '{"stringData":{"token":"second"}}',
    ]);
    for (const ns of ["team-a", "team-b"])
      await eventually(`the copy in ${ns} to follow the source`, 60_000, async () =>
        (await tokenIn(ns)) === "second" ? true : undefined,
      );
  });

  test("sync-secrets: a deleted copy comes back; an edited one is reverted", async () => {
    await ok(["delete", "secret", "regcred", "-n", "team-a"]);
    assert.equal(await eventuallyToken("team-a", 60_000), "second");
    await ok(["patch", "secret", "regcred", "-n", "team-b", "--type=merge", "-p", '{"stringData":{"token":"mine"}}']);
    await eventually("the edited copy to be reverted", 60_000, async () =>
      (await tokenIn("team-b")) === "second" ? true : undefined,
    );
  });

  test("data with synchronize: deleting the trigger removes what it generated", async () => {
    await ok(["apply", "-f", "-"], DERIVE);
    await eventually("derive to generate for a new trigger", 120_000, async () => {
      const name = `probe-${Date.now()}`;
      await ok(["create", "-f", "-"], configMap(name, "apps", { derive: "yes" }));
      for (let i = 0; i < 20; i++) {
        if ((await derivedFrom(`${name}-derived`)) === name) return true;
        await new Promise((r) => setTimeout(r, 500));
      }
      return undefined;
    });
    await ok(["create", "-f", "-"], configMap("web", "apps", { derive: "yes" }));
    await eventually("web-derived", 60_000, async () =>
      (await derivedFrom("web-derived")) === "web" ? true : undefined,
    );
    await ok(["delete", "configmap", "web", "-n", "apps"]);
    await eventually("web-derived to be deleted with its trigger", 60_000, async () =>
      (await derivedFrom("web-derived")) === undefined ? true : undefined,
    );
  });

  test("generateExisting: a Namespace that exists when the policy arrives gets its ConfigMap", async () => {
    await ok(["apply", "-f", "-"], TEAM_CONFIG);
    await eventually("team-tenant-a in ops", 120_000, async () => {
      const r = await current().kubectl([
        "get",
        "configmap",
        "team-tenant-a",
        "-n",
        "ops",
        "-o",
        "jsonpath={.data.team}",
      ]);
      return r.code === 0 && r.stdout.trim() === "alpha" ? true : undefined;
    });
  });

  test("an UpdateRequest written while Bylaw is down is run when it is back", async () => {
    const pid = readPids(current().dir).get("bylaw");
    assert.ok(pid !== undefined, "Bylaw's pid");
    process.kill(pid, "SIGKILL");
    // derive's webhook is failurePolicy Ignore: the trigger is created while Bylaw is down, and the
    // UpdateRequest the webhook would have written is written by hand, as Kyverno's fields have it.
    await eventually("the trigger to be created with Bylaw down", 30_000, async () =>
      (await current().kubectl(["create", "-f", "-"], configMap("late", "apps", { derive: "yes" }))).code === 0
        ? true
        : undefined,
    );
    const uid = await ok(["get", "configmap", "late", "-n", "apps", "-o", "jsonpath={.metadata.uid}"]);
    const trigger = { apiVersion: "v1", kind: "ConfigMap", namespace: "apps", name: "late", uid: uid.trim() };
    const ur = {
      apiVersion: "kyverno.io/v2",
      kind: "UpdateRequest",
      metadata: { generateName: "ur-", namespace: "bylaw" },
      spec: {
        requestType: "generate",
        policy: "derive",
        rule: "",
        deleteDownstream: false,
        resource: trigger,
        ruleContext: [{ rule: "derived-config", deleteDownstream: false, synchronize: true, trigger }],
        context: { userInfo: {}, admissionRequestInfo: { operation: "CREATE" } },
      },
    };
    await ok(["create", "-f", "-"], JSON.stringify(ur));
    assert.equal(await derivedFrom("late-derived"), undefined);
    await restartBylaw(current(), GENERATE_ARGS);
    await eventually("late-derived after the restart", 60_000, async () =>
      (await derivedFrom("late-derived")) === "late" ? true : undefined,
    );
  });

  test("tenants: a namespaced Policy that would write into another namespace fails, and writes nothing", async () => {
    const refused = await current().kubectl(["apply", "-f", "-"], tenantPolicy(false));
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /a namespaced policy cannot generate resources in other namespaces, expected: tenant-a, received: \{\{request.object.metadata.labels.target\}\}/,
    );
    await ok(["apply", "-f", "-"], tenantPolicy(true));
    await eventually("the tenant's request to fail with the reason", 120_000, async () => {
      const name = `probe-${Date.now()}`;
      await ok(["create", "-f", "-"], configMap(name, "tenant-a", { target: "tenant-b" }));
      await new Promise((r) => setTimeout(r, 3_000));
      const urs = JSON.parse(await ok(["get", "updaterequests.kyverno.io", "-n", "bylaw", "-o", "json"])) as {
        items: {
          spec: { policy: string; resource: { name: string } };
          status?: { state?: string; message?: string };
        }[];
      };
      const mine = urs.items.find((u) => u.spec.policy === "tenant-a/copy-out" && u.spec.resource.name === name);
      return mine?.status?.state === "Failed" ? mine.status.message : undefined;
    }).then((message) =>
      assert.match(
        message,
        /rule copy-out: a namespaced Policy \(namespace tenant-a\) can only generate into its own namespace, not ConfigMap tenant-b\/stolen/,
      ),
    );
    const stolen = await current().kubectl(["get", "configmap", "stolen", "-n", "tenant-b"]);
    assert.notEqual(stolen.code, 0, "nothing was written into tenant-b");
    // And Kyverno's Event on the policy: reason PolicyError, from kyverno-generate.
    const events = await eventually("the PolicyError Event on the policy", 30_000, async () => {
      const out = await ok(["get", "events.events.k8s.io", "-n", "tenant-a", "-o", "json"]);
      const items = (
        JSON.parse(out) as {
          items: { reason?: string; reportingController?: string; regarding?: { name?: string }; note?: string }[];
        }
      ).items.filter((e) => e.reason === "PolicyError" && e.regarding?.name === "copy-out");
      return items.length > 0 ? items : undefined;
    });
    assert.equal(events[0]?.reportingController, "kyverno-generate");
    assert.match(
      events[0]?.note ?? "",
      /^policy copy-out\/copy-out error: rule copy-out: a namespaced Policy \(namespace tenant-a\) can only generate/,
    );
  });

  test("deleting a policy deletes what its synchronized rules made; a rule without synchronize keeps it", async () => {
    assert.equal(await derivedFrom("late-derived"), "late");
    await ok(["delete", "clusterpolicy", "derive"]);
    await eventually("late-derived to be deleted with its policy", 60_000, async () =>
      (await derivedFrom("late-derived")) === undefined ? true : undefined,
    );
    await ok(["delete", "clusterpolicy", "team-config"]);
    await new Promise((r) => setTimeout(r, 5_000));
    await ok(["get", "configmap", "team-tenant-a", "-n", "ops"]);
  });

  test("a grant removed after a generateExisting policy was admitted: a PolicyError Event and not Ready, naming it", async () => {
    await ok(["apply", "-f", "-"], PRIORITY_CLASS_GRANT);
    await ok(["apply", "-f", "-"], PRIORITY_CLASS);
    // Admitted once the aggregated grant reaches the background controller's ClusterRole.
    await eventually("pc-config to be admitted with the grant", 60_000, async () =>
      (await current().kubectl(["apply", "-f", "-"], PC_CONFIG)).code === 0 ? true : undefined,
    );
    await eventually("pc-bgscan-low in ops", 120_000, async () =>
      (await current().kubectl(["get", "configmap", "pc-bgscan-low", "-n", "ops"])).code === 0 ? true : undefined,
    );
    await ok(["delete", "clusterrole", "bgscan:priorityclasses"]);
    // The policy's Ready condition turns False at the status writer's next resync, naming the refusal.
    const message = await eventually("pc-config not Ready", 180_000, async () => {
      const out = await ok(["get", "clusterpolicy", "pc-config", "-o", "json"]);
      const ready = (
        JSON.parse(out) as { status?: { conditions?: { type: string; status: string; message?: string }[] } }
      ).status?.conditions?.find((c) => c.type === "Ready");
      return ready?.status === "False" ? (ready.message ?? "") : undefined;
    });
    assert.match(
      message,
      /system:serviceaccount:bylaw:bylaw-background-controller does not have permissions to 'get' resource scheduling.k8s.io\/v1\/PriorityClass in every namespace, the existing triggers generateExisting reads/,
    );
    // A restart lists the existing triggers again: refused, which is a PolicyError Event on the policy.
    // Requests still queued for single triggers may fail on their own read first (their own
    // PolicyError Events), so the list's Event is looked for among them, not taken as the first.
    const listRefused =
      /^policy pc-config\/pc-config error: cannot list the existing triggers of kind scheduling.k8s.io\/v1\/PriorityClass in every namespace: forbidden \(403\): .*system:serviceaccount:bylaw:bylaw-background-controller.* cannot list resource "priorityclasses"/;
    await restartBylaw(current(), GENERATE_ARGS);
    const event = await eventually("the list's PolicyError Event on pc-config", 90_000, async () => {
      const out = await ok(["get", "events.events.k8s.io", "-n", "default", "-o", "json"]);
      const errors = (
        JSON.parse(out) as {
          items: { reason?: string; reportingController?: string; regarding?: { name?: string }; note?: string }[];
        }
      ).items.filter((e) => e.reason === "PolicyError" && e.regarding?.name === "pc-config");
      const found = errors.find((e) => listRefused.test(e.note ?? ""));
      if (found === undefined)
        throw new Error(`PolicyError notes so far: ${JSON.stringify(errors.map((e) => e.note))}`);
      return found;
    });
    assert.equal(event.reportingController, "kyverno-generate");
    await ok(["delete", "clusterpolicy", "pc-config"]);
  });
});

async function eventuallyToken(namespace: string, timeoutMs: number): Promise<string | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const t = await tokenIn(namespace);
    if (t !== undefined || Date.now() > until) return t;
    await new Promise((r) => setTimeout(r, 500));
  }
}
