/**
 * Policies Kyverno's policy webhook refuses are refused at `kubectl apply` by Bylaw's, with
 * Kyverno's texts (issue 33 §3), end to end against `scripts/cluster.sh up DIR --with-bylaw`:
 * - cleanup policies reach the policy webhook: an invalid cron schedule, user info in match, a
 *   configMap context entry each get Kyverno's reason; a valid one is refused too, saying Bylaw
 *   does not run cleanup policies yet;
 * - generate rules: a target the background controller's ServiceAccount may not write (Kyverno's
 *   SubjectAccessReview text naming the verb), a namespaced kind with no target namespace, a
 *   namespaced Policy generating into another namespace; once the ServiceAccount may write
 *   ConfigMaps, a generate policy for them is admitted;
 * - mutate-existing targets the ServiceAccount may not get and update (Kyverno's text naming the verbs);
 * - a validate rule on `Pod/status` with background scans on, and a kind the API server does not serve.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
const BACKGROUND_USER = "system:serviceaccount:bylaw:bylaw-background-controller";

const cleanup = (spec: object, kind = "ClusterCleanupPolicy", namespace?: string): string =>
  JSON.stringify({
    apiVersion: "kyverno.io/v2",
    kind,
    metadata: { name: "tidy", ...(namespace !== undefined ? { namespace } : {}) },
    spec: { match: { any: [{ resources: { kinds: ["ConfigMap"] } }] }, schedule: "*/5 * * * *", ...spec },
  });

const clusterPolicy = (name: string, rule: object, spec: object = {}): string =>
  JSON.stringify({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: { ...spec, rules: [{ name: "r", ...rule }] },
  });

const generateRule = (generate: object): object => ({
  match: { any: [{ resources: { kinds: ["Namespace"] } }] },
  generate: { synchronize: false, data: { data: { a: "b" } }, ...generate },
});

/** kubectl create (server-side dry run) of `doc`: the error kubectl prints, or "" when admitted. */
async function refusal(doc: string): Promise<string> {
  const r = await current().kubectl(["create", "--dry-run=server", "-f", "-"], doc);
  return r.code === 0 ? "" : r.stderr;
}

describe("policies Kyverno's policy webhook refuses", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["create", "namespace", "team"]);
    // A rule with no operation: refused by the policy webhook since it first served (before issue 33 too).
    await eventually("the policy webhook registered", 90_000, async () =>
      (await refusal(clusterPolicy("probe", { match: { any: [{ resources: { kinds: ["Pod"] } }] } }))).includes(
        "No operation defined",
      )
        ? true
        : undefined,
    );
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("a cleanup policy with an invalid cron schedule gets Kyverno's reason", async () => {
    const err = await refusal(cleanup({ schedule: "every five minutes" }));
    assert.match(
      err,
      /spec\.schedule: Invalid value: "every five minutes": schedule spec in the cleanupPolicy is not in proper cron format/,
    );
    assert.doesNotMatch(err, /does not run cleanup policies/);
  });

  test("a cleanup policy with user info in match, or a configMap context entry, gets Kyverno's reason", async () => {
    const roles = await refusal(
      cleanup(
        { match: { any: [{ resources: { kinds: ["ConfigMap"] }, roles: ["team:admin"] }] } },
        "CleanupPolicy",
        "team",
      ),
    );
    assert.match(roles, /spec\.match\.any\[0\]\.roles: Forbidden: Usage of user info is forbidden/);
    const context = await refusal(
      cleanup({ context: [{ name: "cm", configMap: { name: "settings", namespace: "team" } }] }),
    );
    assert.match(context, /spec\.context: Invalid value: .*: ConfigMap is not allowed in CleanUp Policy/);
  });

  test("a valid cleanup policy is refused: Bylaw does not run cleanup policies yet", async () => {
    const err = await refusal(cleanup({}));
    assert.match(
      err,
      /kyverno\.io\/v2 ClusterCleanupPolicy is not supported by Bylaw yet: Bylaw does not run cleanup policies \(it has no cleanup controller yet\), so tidy would never delete anything/,
    );
    const got = await current().kubectl(["get", "clustercleanuppolicies", "-o", "name"]);
    assert.equal(got.stdout.trim(), "");
  });

  test("a generate rule whose target the background controller may not write names the missing verb", async () => {
    const err = await refusal(
      clusterPolicy("gen-secret", generateRule({ apiVersion: "v1", kind: "Secret", name: "s", namespace: "team" })),
    );
    assert.match(
      err,
      new RegExp(
        `spec\\.rules\\[0\\]\\.generate: ${BACKGROUND_USER} does not have permissions to 'create' resource v1/Secret//team\\. Grant proper permissions to the background controller`,
      ),
    );
  });

  test("a mutate-existing target the background controller may not get and update is refused, naming the verbs", async () => {
    const err = await refusal(
      clusterPolicy("touch-secrets", {
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        mutate: {
          targets: [{ apiVersion: "v1", kind: "Secret", namespace: "team" }],
          patchStrategicMerge: { metadata: { labels: { touched: "yes" } } },
        },
      }),
    );
    assert.match(
      err,
      new RegExp(
        `spec\\.rules\\[0\\]\\.mutate\\.targets: ${BACKGROUND_USER} requires permissions get,update for resource v1/Secret in namespace team`,
      ),
    );
  });

  test("a generate target's namespace must fit the kind and the policy's scope", async () => {
    const noNamespace = await refusal(
      clusterPolicy("gen-no-ns", generateRule({ apiVersion: "v1", kind: "ConfigMap", name: "c" })),
    );
    assert.match(
      noNamespace,
      /spec\.rules\[0\]\.generate\.namespace: Forbidden: target namespace must be set for a namespaced resource/,
    );
    const elsewhere = await refusal(
      JSON.stringify({
        apiVersion: "kyverno.io/v1",
        kind: "Policy",
        metadata: { name: "gen-elsewhere", namespace: "team" },
        spec: {
          rules: [
            {
              name: "r",
              match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
              generate: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "default", data: {} },
            },
          ],
        },
      }),
    );
    assert.match(
      elsewhere,
      /Forbidden: target resource scope mismatched: a namespaced policy cannot generate resources in other namespaces, expected: team, received: default/,
    );
  });

  test("once the background controller may write ConfigMaps, a generate policy for them is admitted", async () => {
    await ok(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "generate-configmaps" },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["create", "update", "get", "delete"] }],
      }),
    );
    await ok([
      "create",
      "clusterrolebinding",
      "generate-configmaps",
      "--clusterrole=generate-configmaps",
      "--serviceaccount=bylaw:bylaw-background-controller",
    ]);
    const policy = clusterPolicy(
      "gen-configmap",
      generateRule({ apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "{{request.object.metadata.name}}" }),
    );
    await eventually("the grant seen by the API server's authorizer", 60_000, async () =>
      (await current().kubectl(["apply", "-f", "-"], policy)).code === 0 ? true : undefined,
    );
    assert.match(await ok(["get", "clusterpolicy", "gen-configmap", "-o", "name"]), /gen-configmap/);
  });

  test("a validate rule on a subresource with background scans on, and a kind nothing serves, are refused", async () => {
    const rule = (kinds: string[]): object => ({
      match: { any: [{ resources: { kinds } }] },
      validate: { message: "m", pattern: { metadata: { name: "?*" } } },
    });
    const status = await refusal(clusterPolicy("pod-status", rule(["Pod/status"])));
    assert.match(
      status,
      /spec\.rules\[0\]\.match\.any\[0\]\.kinds: the kind defined in the all match resource is invalid: background scan enabled with subresource Pod\/status/,
    );
    assert.equal(await refusal(clusterPolicy("pod-status", rule(["Pod/status"]), { background: false })), "");
    const unknown = await refusal(clusterPolicy("widgets", rule(["Widget"])));
    assert.match(
      unknown,
      /spec\.rules\[0\]\.match\.any\[0\]\.kinds: the kind defined in the all match resource is invalid: unable to convert GVK to GVR for kinds Widget/,
    );
  });
});
