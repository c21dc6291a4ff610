/**
 * Mutate-existing rules in a cluster (issue 35 §3), end to end against `scripts/cluster.sh up DIR
 * --with-bylaw` with kubectl, in the shape of Kyverno's docs ("Mutate Existing resources"):
 * - a ConfigMap trigger patches a Secret target's label; the policy is Ready once the background
 *   controller runs (serve --generate-controller-as SA), and the work leaves no UpdateRequest;
 * - mutateExistingOnPolicyUpdate: targets that exist when the policy arrives are patched, chosen by
 *   the target's selector;
 * - a namespaced Policy cannot reach another namespace: the target namespace comes from the
 *   trigger, so only the value after substitution shows it; the UpdateRequest fails with the
 *   reason and the other tenant's Secret is left as it was;
 * - a poisoned UpdateRequest (a trigger kind the cluster does not serve) fails with the reason and
 *   the next trigger is still served.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  eventually,
  kubectlOk,
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

const BACKGROUND_ARGS = { extraArgs: GENERATE_AS_BACKGROUND_ARGS };

/** What Kyverno's docs tell users to add so the background controller may update Secrets. */
const SECRET_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:secrets:mutate
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [""]
    resources: [secrets]
    verbs: [get, list, watch, update]
`;

/** Kyverno's docs' example: a ConfigMap dictionary-1 in staging labels the Secret secret-1 beside it. */
const MUTATE_EXISTING_SECRET = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: mutate-existing-secret
spec:
  rules:
    - name: mutate-secret-on-configmap-create
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              names: [dictionary-1]
              namespaces: [staging]
      mutate:
        targets:
          - apiVersion: v1
            kind: Secret
            name: secret-1
            namespace: "{{ request.object.metadata.namespace }}"
        patchStrategicMerge:
          metadata:
            labels:
              foo: bar
`;

/** mutateExistingOnPolicyUpdate: the ConfigMap settings in apps exists before the policy; Secrets picked by label. */
const ON_POLICY_UPDATE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: stamp-on-policy-update
spec:
  rules:
    - name: stamp-secrets
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              names: [settings]
              namespaces: [apps]
      mutate:
        mutateExistingOnPolicyUpdate: true
        targets:
          - apiVersion: v1
            kind: Secret
            namespace: "{{ request.object.metadata.namespace }}"
            selector:
              matchLabels:
                stamp: "yes"
        patchStrategicMerge:
          metadata:
            labels:
              stamped: "{{ request.object.data.version }}"
`;

/** A tenant's Policy whose target namespace a trigger's label names. */
const REACH_OUT = `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: reach-out
  namespace: tenant-a
spec:
  rules:
    - name: reach-out
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              selector:
                matchLabels:
                  target: "?*"
      mutate:
        targets:
          - apiVersion: v1
            kind: Secret
            name: victim
            namespace: "{{ request.object.metadata.labels.target }}"
        patchStrategicMerge:
          metadata:
            labels:
              owned: by-tenant-a
`;

const secret = (name: string, namespace: string, labels: Record<string, string> = {}): string =>
  JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name, namespace, labels }, stringData: { k: "v" } });
const configMap = (name: string, namespace: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { a: "b" }, ...extra });

/** One label of a Secret ("" when it has none). */
async function labelOf(name: string, namespace: string, label: string): Promise<string> {
  const out = await ok(["get", "secret", name, "-n", namespace, "-o", "json"]);
  const labels = (JSON.parse(out) as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {};
  return labels[label] ?? "";
}

async function readyOf(kind: string, name: string, namespace?: string): Promise<string> {
  return ok([
    "get",
    kind,
    name,
    ...(namespace !== undefined ? ["-n", namespace] : []),
    "-o",
    'jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].message}',
  ]);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("mutate-existing rules in a cluster", { timeout: buildTimeoutMs + 15 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["apply", "-f", "-"], GENERATE_AS_BACKGROUND);
    await restartBylaw(current(), BACKGROUND_ARGS);
    await ok(["apply", "-f", "-"], SECRET_GRANTS);
    for (const ns of ["staging", "apps", "tenant-a", "tenant-b"]) await ok(["create", "namespace", ns]);
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("a ConfigMap trigger patches the Secret target's label; the policy is Ready; no UpdateRequest is left", async () => {
    await ok(["create", "-f", "-"], secret("secret-1", "staging"));
    // Kyverno's check at apply: the background controller may get and update the targets (granted above).
    await eventually("the policy admitted once the grant is seen", 60_000, async () => {
      const r = await current().kubectl(["apply", "-f", "-"], MUTATE_EXISTING_SECRET);
      return r.code === 0 ? true : undefined;
    });
    const ready = await eventually("mutate-existing-secret Ready", 60_000, async () => {
      const r = await readyOf("clusterpolicy", "mutate-existing-secret");
      return r.startsWith("True") ? r : undefined;
    });
    assert.doesNotMatch(ready, /mutate\.targets/);
    // The trigger's webhook rules are registered once Bylaw has read the policy: a trigger made
    // before that brings no work, so it is made again until one does.
    await eventually("secret-1 labelled foo=bar after dictionary-1 is created", 120_000, async () => {
      await ok(["delete", "configmap", "dictionary-1", "-n", "staging", "--ignore-not-found"]);
      await ok(["create", "-f", "-"], configMap("dictionary-1", "staging"));
      for (let i = 0; i < 20; i++) {
        if ((await labelOf("secret-1", "staging", "foo")) === "bar") return true;
        await sleep(500);
      }
      return undefined;
    });
    await eventually("the UpdateRequests to be deleted once completed", 60_000, async () =>
      (await ok(["get", "updaterequests.kyverno.io", "-n", "bylaw", "-o", "name"])).trim() === "" ? true : undefined,
    );
  });

  test("mutateExistingOnPolicyUpdate: Secrets that exist when the policy arrives are patched, as the selector picks them", async () => {
    await ok(["create", "-f", "-"], secret("picked", "apps", { stamp: "yes" }));
    await ok(["create", "-f", "-"], secret("left-alone", "apps", { stamp: "no" }));
    await ok(["create", "-f", "-"], configMap("settings", "apps", { data: { version: "v7" } }));
    await ok(["apply", "-f", "-"], ON_POLICY_UPDATE);
    await eventually("the picked Secret stamped with the trigger's version", 120_000, async () =>
      (await labelOf("picked", "apps", "stamped")) === "v7" ? true : undefined,
    );
    assert.equal(await labelOf("left-alone", "apps", "stamped"), "");
  });

  test("a namespaced Policy cannot mutate a Secret in another namespace: the UpdateRequest fails with the reason", async () => {
    await ok(["create", "-f", "-"], secret("victim", "tenant-b"));
    await ok(["create", "-f", "-"], secret("victim", "tenant-a"));
    await ok(["apply", "-f", "-"], REACH_OUT);
    const failed = await eventually("the reach-out UpdateRequest Failed", 120_000, async () => {
      // As with the first test, a trigger made before the webhook takes ConfigMaps brings no work.
      const name = `probe-${Date.now()}`;
      await ok(
        ["create", "-f", "-"],
        configMap(name, "tenant-a", { metadata: { name, namespace: "tenant-a", labels: { target: "tenant-b" } } }),
      );
      for (let i = 0; i < 20; i++) {
        const list = JSON.parse(await ok(["get", "updaterequests.kyverno.io", "-n", "bylaw", "-o", "json"])) as {
          items: { spec: { policy: string; requestType: string }; status?: { state?: string; message?: string } }[];
        };
        const ur = list.items.find((u) => u.spec.policy === "tenant-a/reach-out" && u.status?.state === "Failed");
        if (ur !== undefined) return ur;
        await sleep(500);
      }
      return undefined;
    });
    assert.equal(failed.spec.requestType, "mutate");
    assert.match(
      failed.status?.message ?? "",
      /failed to mutate existing resource, rule reach-out, response error: .*a namespaced Policy can only mutate targets in its own namespace tenant-a \(got tenant-b\)/,
    );
    assert.equal(await labelOf("victim", "tenant-b", "owned"), "");
    // Its own namespace is still reachable.
    await ok(
      ["create", "-f", "-"],
      configMap("own", "tenant-a", {
        metadata: { name: "own", namespace: "tenant-a", labels: { target: "tenant-a" } },
      }),
    );
    await eventually("tenant-a's own Secret labelled", 60_000, async () =>
      (await labelOf("victim", "tenant-a", "owned")) === "by-tenant-a" ? true : undefined,
    );
    assert.equal(await labelOf("victim", "tenant-b", "owned"), "");
  });

  test("a poisoned UpdateRequest fails with the reason and the controller keeps running the others", async () => {
    const poisoned = {
      apiVersion: "kyverno.io/v2",
      kind: "UpdateRequest",
      metadata: { generateName: "ur-", namespace: "bylaw" },
      spec: {
        requestType: "mutate",
        policy: "mutate-existing-secret",
        rule: "mutate-secret-on-configmap-create",
        deleteDownstream: false,
        resource: { apiVersion: "example.com/v1", kind: "NoSuchKind", namespace: "staging", name: "x", uid: "" },
        context: { userInfo: {}, admissionRequestInfo: { operation: "CREATE" } },
      },
    };
    const name = (await ok(["create", "-f", "-", "-o", "name"], JSON.stringify(poisoned))).trim();
    const message = await eventually("the poisoned UpdateRequest Failed", 60_000, async () => {
      const r = await ok(["get", name, "-n", "bylaw", "-o", "jsonpath={.status.state} {.status.message}"]);
      return r.startsWith("Failed ") ? r : undefined;
    });
    assert.match(message, /failed to get the trigger NoSuchKind staging\/x: not found/);
    // The next trigger is still served.
    await ok(["create", "-f", "-"], secret("after-poison", "apps", { stamp: "yes" }));
    await ok(["patch", "configmap", "settings", "-n", "apps", "--type=merge", "-p", '{"data":{"version":"v8"}}']);
    await eventually("the Secret stamped after the poisoned request", 60_000, async () =>
      (await labelOf("after-poison", "apps", "stamped")) === "v8" ? true : undefined,
    );
  });
});
