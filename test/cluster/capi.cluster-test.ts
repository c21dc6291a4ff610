/**
 * Issue 35, done when 2: the seed scenario, Cluster API clusters registered with Argo CD, end to end
 * with kubectl on `scripts/cluster.sh up --with-bylaw`, the background component in its own process
 * as deploy/ runs it. The policies, Clusters, kubeconfig Secrets and expected Secrets are the files
 * of examples/generate/argocd-cluster (read from the checkout), so `bylaw test` offline and this
 * cluster agree on the same input:
 * - a policy with the deprecated `spec.generateExistingOnPolicyUpdate` is refused at `kubectl apply`,
 *   naming the replacement (`generate.generateExisting`) and `bylaw fix policy`;
 * - the two policies, as the user wrote them (`generate.generateExisting: true`), are Ready;
 * - edge-01, a Cluster that existed before the policies, gets `argocd/cluster-edge-01` (client
 *   certificate variant); eu-managed-02, created afterwards, gets the bearer-token variant from the
 *   token policy and none from the certificate policy, whose `exclude` names it; each Secret's
 *   `name`, `server`, `config`, type and labels are exactly the expected files';
 * - deleting a Cluster removes its Secret (`synchronize: true`).
 * - what the background controller may not do is refused at `kubectl apply`, naming the verb. The
 *   user grants it as for Kyverno, with ClusterRoles labelled
 *   `rbac.kyverno.io/aggregate-to-background-controller: "true"`: writing (and, for the `apiCall`,
 *   reading) Secrets, as Kyverno's docs say (SECRET_GRANTS), and, unlike with Kyverno, whose
 *   controller reads every kind, reading Clusters, which generateExisting lists (CLUSTER_GRANTS).
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { parse, parseAllDocuments } from "yaml";
import {
  crdsEstablished,
  eventually,
  kubectlOk,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";
import { componentAccount, startComponent } from "./component-process.js";
import type { ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
const example = join(
  resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", ".."),
  "examples",
  "generate",
  "argocd-cluster",
);
const file = (name: string): string => readFileSync(join(example, name), "utf8");

let cluster: Cluster | undefined;
const running: ServeProcess[] = [];
const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

/** A small CRD of our own for Cluster API's Cluster (cluster.x-k8s.io/v1beta1): the spec is kept as given. */
const CLUSTER_CRD = JSON.stringify({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "clusters.cluster.x-k8s.io" },
  spec: {
    group: "cluster.x-k8s.io",
    scope: "Namespaced",
    names: { kind: "Cluster", listKind: "ClusterList", plural: "clusters", singular: "cluster" },
    versions: [
      {
        name: "v1beta1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
    ],
  },
});

/**
 * What Kyverno's docs tell users to add so its background controller may write Secrets. Kyverno's
 * controller reads every resource by default; Bylaw's reads only what it is granted (deploy/README.md,
 * "What is not granted"), so the apiCall's kubeconfig Secrets are read under this grant too.
 */
const SECRET_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:secrets:manage
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [""]
    resources: [secrets]
    verbs: [get, list, watch, create, update, patch, delete]
`;

/** And what Bylaw needs beyond it: reading Clusters, which generateExisting lists and each request reads again. */
const CLUSTER_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:capi-clusters:view
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [cluster.x-k8s.io]
    resources: [clusters]
    verbs: [get, list, watch]
`;

/** Waits until the aggregated grants let the background controller `verb` `resource` in every namespace. */
async function backgroundMay(verb: string, resource: string): Promise<void> {
  await eventually(`the background controller to ${verb} ${resource}`, 60_000, async () => {
    const r = await current().kubectl([
      "auth",
      "can-i",
      verb,
      resource,
      "-A",
      "--as",
      `system:serviceaccount:bylaw:${componentAccount("background")}`,
    ]);
    return r.stdout.trim() === "yes";
  });
}

/** kubectl apply of `policy`, once the policy webhook answers, refused: kubectl's stderr. */
function refused(policy: string): Promise<string> {
  return eventually("the policy webhook to refuse the policy", 90_000, async () => {
    const r = await current().kubectl(["apply", "-f", "-"], policy);
    assert.notEqual(r.code, 0, `admitted: ${r.stdout}`);
    return r.stderr.includes("denied the request") ? r.stderr : undefined;
  });
}

interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly [key: string]: unknown;
}

/** The Clusters of clusters.yaml, by name. */
const CLUSTERS = new Map(
  parseAllDocuments(file("clusters.yaml")).map((d) => {
    const m = d.toJS() as Manifest;
    return [m.metadata.name, m] as const;
  }),
);

/** The kubeconfig Secrets the offline suite answers its apiCalls with: created here for real. */
const KUBECONFIGS = (
  parse(file("kyverno-test.yaml")) as { apiCallResponses: { response: { body: Manifest } }[] }
).apiCallResponses.map((r) => r.response.body);

/** The policy documents as the user wrote them. */
const POLICY_CERT = file("policy-cert.yaml");
const POLICY_TOKEN = file("policy-token.yaml");

interface ExpectedSecret {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels: Record<string, string> };
  readonly type: string;
  readonly stringData: Record<string, string>;
}
const expected = (name: string): ExpectedSecret => parse(file(`generated-${name}.yaml`)) as ExpectedSecret;

interface SecretJson {
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly type?: string;
  readonly data?: Record<string, string>;
}

/** Secret `name` in argocd, or undefined while there is none. */
async function argoSecret(name: string): Promise<SecretJson | undefined> {
  const r = await current().kubectl(["get", "secret", name, "-n", "argocd", "-o", "json"]);
  return r.code === 0 ? (JSON.parse(r.stdout) as SecretJson) : undefined;
}

/** The Secret as Argo CD reads it: its data decoded, its type, and the labels the expected file names. */
function asExpected(secret: SecretJson, want: ExpectedSecret): Omit<ExpectedSecret, "metadata"> & { labels: object } {
  const labels = secret.metadata.labels ?? {};
  return {
    type: secret.type ?? "",
    stringData: Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
    ),
    labels: Object.fromEntries(Object.keys(want.metadata.labels).map((k) => [k, labels[k]])),
  };
}

/** Checks that the generated Secret for `clusterName` is the expected file's, made by `policy`. */
async function assertGenerated(clusterName: string, policy: string, timeoutMs: number): Promise<void> {
  const want = expected(clusterName);
  const secret = await eventually(`Secret argocd/${want.metadata.name}`, timeoutMs, () =>
    argoSecret(want.metadata.name),
  );
  assert.deepEqual(asExpected(secret, want), {
    type: want.type,
    stringData: want.stringData,
    labels: want.metadata.labels,
  });
  // Argo CD parses `config`: JSON, byte for byte what the offline suite expects (above).
  assert.doesNotThrow(() => JSON.parse(asExpected(secret, want).stringData["config"] ?? ""));
  const labels = secret.metadata.labels ?? {};
  assert.equal(labels["generate.kyverno.io/policy-name"], policy);
  // Kyverno's generate labels name the trigger: this Cluster.
  const uid = (
    await ok(["get", "clusters.cluster.x-k8s.io", clusterName, "-n", "fleet", "-o", "jsonpath={.metadata.uid}"])
  ).trim();
  assert.deepEqual(
    [
      labels["generate.kyverno.io/trigger-group"],
      labels["generate.kyverno.io/trigger-version"],
      labels["generate.kyverno.io/trigger-kind"],
      labels["generate.kyverno.io/trigger-namespace"],
      labels["generate.kyverno.io/trigger-uid"],
    ],
    ["cluster.x-k8s.io", "v1beta1", "Cluster", "fleet", uid],
  );
}

/** The names of the Secrets in argocd that `policy` generated. */
async function generatedBy(policy: string): Promise<string[]> {
  const out = await ok([
    "get",
    "secrets",
    "-n",
    "argocd",
    "-l",
    `generate.kyverno.io/policy-name=${policy}`,
    "-o",
    "jsonpath={.items[*].metadata.name}",
  ]);
  return out.trim() === "" ? [] : out.trim().split(/\s+/).sort();
}

async function readyStatus(policy: string): Promise<string> {
  return ok(["get", "cpol", policy, "-o", "jsonpath={.status.conditions[?(@.type=='Ready')].status}"]);
}

describe(
  "Cluster API clusters registered with Argo CD (the seed scenario)",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      await ok(["apply", "-f", "-"], CLUSTER_CRD);
      await crdsEstablished(current(), ["crd/clusters.cluster.x-k8s.io"]);
      for (const ns of ["fleet", "argocd"]) await ok(["create", "namespace", ns]);
      for (const secret of KUBECONFIGS) await ok(["create", "-f", "-"], JSON.stringify(secret));
      // edge-01 exists before any policy: only generateExisting can give it its Secret.
      await ok(["create", "-f", "-"], JSON.stringify(CLUSTERS.get("edge-01")));
      running.push(await startComponent(current(), "background"));
    });

    after(async () => {
      for (const p of running) await p.kill("SIGKILL");
      await tearDown(cluster);
    });

    test("the deprecated generateExistingOnPolicyUpdate is refused at kubectl apply, naming generateExisting and bylaw fix", async () => {
      const deprecated = POLICY_TOKEN.replace(/^spec:\n/m, "spec:\n  generateExistingOnPolicyUpdate: true\n");
      assert.notEqual(deprecated, POLICY_TOKEN);
      const text = await refused(deprecated);
      assert.match(
        text,
        /spec\.generateExistingOnPolicyUpdate: remove the deprecated field spec\.generateExistingOnPolicyUpdate; use generateExisting in each generate rule \(spec\.rules\[\*\]\.generate\.generateExisting\)/,
      );
      assert.match(text, /`bylaw fix policy PATH` rewrites it/);
      assert.notEqual((await current().kubectl(["get", "cpol", "argocd-cluster-from-token"])).code, 0);
    });

    test("what the background controller may not do is refused at kubectl apply, naming the verb: writing Secrets, then reading Clusters", async () => {
      assert.match(
        await refused(POLICY_CERT),
        /spec\.rules\[0\]\.generate: system:serviceaccount:bylaw:bylaw-background-controller does not have permissions to 'create' resource v1\/Secret\/\/argocd\. Grant proper permissions to the background controller/,
      );
      await ok(["apply", "-f", "-"], SECRET_GRANTS);
      await backgroundMay("create", "secrets");
      // Kyverno's controller reads every kind; Bylaw's would list no Cluster for generateExisting, so the policy is refused rather than Ready and idle.
      assert.match(
        await refused(POLICY_CERT),
        /spec\.rules\[0\]\.generate\.generateExisting: system:serviceaccount:bylaw:bylaw-background-controller does not have permissions to 'get' resource cluster\.x-k8s\.io\/v1beta1\/Cluster in every namespace, the existing triggers generateExisting reads\. Grant proper permissions to the background controller/,
      );
      await ok(["apply", "-f", "-"], CLUSTER_GRANTS);
      await backgroundMay("list", "clusters.cluster.x-k8s.io");
    });

    test("the policies as written are Ready; a Cluster that existed before them gets its Secret (generateExisting)", async () => {
      await ok(["apply", "-f", "-"], POLICY_CERT);
      await ok(["apply", "-f", "-"], POLICY_TOKEN);
      for (const policy of ["argocd-cluster-from-certificates", "argocd-cluster-from-token"])
        await eventually(`${policy} Ready`, 60_000, async () => (await readyStatus(policy)) === "True");
      await assertGenerated("edge-01", "argocd-cluster-from-certificates", 90_000);
    });

    test("a new managed Cluster gets the bearer-token variant, and none from the policy that excludes it", async () => {
      await ok(["create", "-f", "-"], JSON.stringify(CLUSTERS.get("eu-managed-02")));
      await assertGenerated("eu-managed-02", "argocd-cluster-from-token", 60_000);
      assert.deepEqual(await generatedBy("argocd-cluster-from-certificates"), ["cluster-edge-01"]);
      assert.deepEqual(await generatedBy("argocd-cluster-from-token"), ["cluster-eu-managed-02"]);
      // Every UpdateRequest ran to completion (a failed one is kept, with its reason).
      await eventually("no UpdateRequest left", 60_000, async () =>
        (await ok(["get", "updaterequests.kyverno.io", "-n", "bylaw", "-o", "name"])).trim() === "" ? true : undefined,
      );
    });

    test("deleting a Cluster removes its Secret; the other stays", async () => {
      await ok(["delete", "clusters.cluster.x-k8s.io", "eu-managed-02", "-n", "fleet"]);
      await eventually("argocd/cluster-eu-managed-02 to be deleted", 60_000, async () =>
        (await argoSecret("cluster-eu-managed-02")) === undefined ? true : undefined,
      );
      assert.notEqual(await argoSecret("cluster-edge-01"), undefined, "edge-01's Secret stays");
      await ok(["delete", "clusters.cluster.x-k8s.io", "edge-01", "-n", "fleet"]);
      await eventually("argocd/cluster-edge-01 to be deleted", 60_000, async () =>
        (await argoSecret("cluster-edge-01")) === undefined ? true : undefined,
      );
    });
  },
);
