/**
 * Issue 22 §5 (self-registration), end to end (`npm run test:cluster`) against
 * `scripts/cluster.sh up DIR --with-bylaw`: Bylaw runs from the checkout as the ServiceAccount and
 * RBAC deploy/ ships, and registers its own webhooks (--register --server-url). Policies are
 * ClusterPolicy objects applied with kubectl (Bylaw reads them from the CRDs).
 * - a require-labels ClusterPolicy (Enforce, Fail): `kubectl run` of an unlabeled Pod is denied with
 *   Kyverno's message naming the policy and rule; a labeled one is created;
 * - the registered rules cover Pods and their controllers only: a ConfigMap write never reaches
 *   Bylaw (its metrics count no ConfigMap review);
 * - `kubectl apply` of an invalid ClusterPolicy is refused with the reason; so is a tenant Policy
 *   whose context entry names another namespace;
 * - a mutate policy gets a mutating webhook (CREATE, UPDATE); a deleted configuration is not
 *   re-created (Bylaw may only update it: the emergency switch holds), and the log says so;
 * - with Bylaw stopped, the API server refuses the Fail policy's kinds and admits the Ignore
 *   policy's, as registered.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { policyFixture } from "../support/policy-fixtures.js";
import {
  bylawEnv,
  eventually,
  kubectlOk,
  processRunning,
  readPids,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let env: Record<string, string> = {};

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const REQUIRE_LABELS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-labels
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
  rules:
    - name: check-for-labels
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: "label 'app.kubernetes.io/name' is required"
        pattern:
          metadata:
            labels:
              app.kubernetes.io/name: "?*"
`;

const IGNORE_CONFIGMAPS = policyFixture("configmaps-audit");

function mutatePolicy(kind: string): string {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-label
spec:
  background: false
  rules:
    - name: add
      match:
        any:
          - resources:
              kinds: [${kind}]
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              +(touched-by): bylaw
`;
}

interface Registered {
  readonly name: string;
  readonly failurePolicy: string;
  readonly rules: { readonly apiGroups: string[]; readonly resources: string[]; readonly operations: string[] }[];
}

async function webhooks(): Promise<Registered[]> {
  const json = JSON.parse(
    await ok(["get", "validatingwebhookconfiguration", "bylaw-resource-validating-webhook-cfg", "-o", "json"]),
  ) as { webhooks?: Registered[] };
  return json.webhooks ?? [];
}

async function metrics(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${env["BYLAW_METRICS_PORT"]}/metrics`);
  return res.text();
}

/** Admission reviews Bylaw counted for a kind (kyverno_admission_requests_total). */
function reviewsOf(text: string, kind: string): number {
  return text
    .split("\n")
    .filter((l) => l.startsWith("kyverno_admission_requests_total{") && l.includes(`resource_kind="${kind}"`))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

describe("Bylaw registers its own webhooks in a real cluster", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
    env = bylawEnv(cluster.dir);
    await ok(["apply", "-f", "-"], REQUIRE_LABELS);
    await eventually("the Fail webhook for the Pod policy", 60_000, async () =>
      (await webhooks()).some((w) => w.name === "validate.bylaw.svc-fail") ? true : undefined,
    );
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("an unlabeled Pod is denied with Kyverno's message naming the policy; a labeled one is created", async () => {
    // Bylaw reads the policy from its CRD and writes its status: kubectl get cpol shows it Ready.
    await eventually("require-labels Ready in kubectl get cpol", 30_000, async () =>
      (await ok([
        "get",
        "cpol",
        "require-labels",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
      ])) === "True"
        ? true
        : undefined,
    );
    const denied = await current().kubectl(["run", "unlabeled", "--image=registry.invalid/app:1"]);
    assert.notEqual(denied.code, 0, "the unlabeled Pod was created");
    assert.match(denied.stderr, /admission webhook "validate\.bylaw\.svc-fail" denied the request/);
    assert.match(denied.stderr, /resource Pod\/default\/unlabeled was blocked due to the following policies/);
    assert.match(
      denied.stderr,
      /require-labels:\s+check-for-labels: 'validation error: label ''app\.kubernetes\.io\/name'' is required/,
    );
    await ok(["run", "labeled", "--image=registry.invalid/app:1", "--labels=app.kubernetes.io/name=shop"]);
  });

  test("the registered rules cover only Pods and their controllers: a ConfigMap write never reaches Bylaw", async () => {
    const hooks = await webhooks();
    assert.deepEqual(
      hooks.map((w) => [w.name, w.failurePolicy]),
      [["validate.bylaw.svc-fail", "Fail"]],
    );
    const resources = hooks.flatMap((w) => w.rules.flatMap((r) => r.resources));
    assert.ok(resources.includes("pods") && resources.includes("deployments"), resources.join(","));
    for (const r of resources)
      assert.ok(!r.includes("*") && r !== "configmaps", `registered ${r}: ${resources.join(",")}`);
    const before = await metrics();
    assert.ok(reviewsOf(before, "Pod") >= 2, "Bylaw counted the Pod reviews (the metric is the right one to read)");
    await ok(["create", "configmap", "not-for-bylaw", "--from-literal=a=b"]);
    await ok(["run", "counted", "--image=registry.invalid/app:1", "--labels=app.kubernetes.io/name=shop"]);
    const afterWrites = await eventually("the next Pod review counted", 10_000, async () => {
      const text = await metrics();
      return reviewsOf(text, "Pod") > reviewsOf(before, "Pod") ? text : undefined;
    });
    assert.equal(reviewsOf(afterWrites, "ConfigMap"), 0, "a ConfigMap review reached Bylaw");
  });

  test("kubectl apply of an invalid ClusterPolicy is refused with the reason", async () => {
    const bad = REQUIRE_LABELS.replace("name: require-labels", "name: invalid").replace(
      '        message: "label',
      '        deny: {}\n        message: "label',
    );
    const r = await current().kubectl(["apply", "-f", "-"], bad);
    assert.notEqual(r.code, 0, "the invalid policy was stored");
    assert.match(
      r.stderr,
      /admission webhook "validate-policy\.bylaw\.svc" denied the request: spec\.rules\[0\]\.validate: .*found pattern, deny/,
    );
  });

  test("a tenant Policy whose context entry names another namespace is refused with the field", async () => {
    await ok(["create", "namespace", "tenant-a"]);
    const steal = `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: steal
  namespace: tenant-a
spec:
  rules:
    - name: r
      match:
        any:
          - resources:
              kinds: [ConfigMap]
      context:
        - name: canary
          apiCall:
            urlPath: /api/v1/namespaces/tenant-b/configmaps/canary
      validate:
        message: "{{ canary.data.secret }}"
        deny: {}
`;
    const r = await current().kubectl(["apply", "-f", "-"], steal);
    assert.notEqual(r.code, 0, "the tenant policy was stored");
    assert.match(
      r.stderr,
      /validate-policy\.bylaw\.svc" denied the request: spec\.rules\[0\]\.context\[0\]\.apiCall\.urlPath: .*tenant-b/,
    );
  });

  test("a mutate policy gets a mutating webhook; a deleted configuration (the emergency switch) is not re-created, and the log says why", async () => {
    await ok(["apply", "-f", "-"], mutatePolicy("Secret"));
    await eventually("the mutating webhook for Secrets", 30_000, async () => {
      const json = JSON.parse(
        await ok(["get", "mutatingwebhookconfiguration", "bylaw-resource-mutating-webhook-cfg", "-o", "json"]),
      ) as { webhooks?: Registered[] };
      return json.webhooks?.some(
        (w) =>
          w.name === "mutate.bylaw.svc-fail" &&
          w.rules.some((r) => r.resources.includes("secrets") && r.operations.join() === "CREATE,UPDATE"),
      )
        ? true
        : undefined;
    });
    await ok(["delete", "mutatingwebhookconfiguration", "bylaw-resource-mutating-webhook-cfg"]);
    await ok(["apply", "-f", "-"], mutatePolicy("ServiceAccount"));
    const log = join(current().dir, "logs", "bylaw.log");
    await eventually("Bylaw to log the refused write", 30_000, async () =>
      /could not register MutatingWebhookConfiguration bylaw-resource-mutating-webhook-cfg; the configuration in the cluster stays as it was: .*forbidden/.test(
        readFileSync(log, "utf8"),
      )
        ? true
        : undefined,
    );
    const gone = await current().kubectl([
      "get",
      "mutatingwebhookconfiguration",
      "bylaw-resource-mutating-webhook-cfg",
    ]);
    assert.notEqual(gone.code, 0, "Bylaw re-created a configuration its RBAC does not let it create");
    assert.match(gone.stderr, /NotFound/);
  });

  test("with Bylaw stopped, the Fail policy's kinds are refused and the Ignore policy's admitted", async () => {
    await ok(["apply", "-f", "-"], IGNORE_CONFIGMAPS);
    await eventually("the Ignore webhook for ConfigMaps", 30_000, async () =>
      (await webhooks()).some(
        (w) => w.name === "validate.bylaw.svc-ignore" && w.rules.some((r) => r.resources.includes("configmaps")),
      )
        ? true
        : undefined,
    );
    const pid = readPids(current().dir).get("bylaw");
    assert.ok(pid !== undefined && processRunning(pid), "Bylaw runs");
    process.kill(pid, "SIGTERM");
    await eventually("Bylaw to exit", 30_000, async () => (processRunning(pid) ? undefined : true));
    const refused = await current().kubectl([
      "run",
      "while-down",
      "--image=registry.invalid/app:1",
      "--labels=app.kubernetes.io/name=shop",
    ]);
    assert.notEqual(refused.code, 0, "a Pod was admitted with its Fail webhook down");
    assert.match(refused.stderr, /failed calling webhook "validate\.bylaw\.svc-fail"/);
    await ok(["create", "configmap", "while-down", "--from-literal=a=b"]);
    assert.equal((await webhooks()).length, 2, "the configurations stay registered after Bylaw stops");
  });
});
