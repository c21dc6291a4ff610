/**
 * Fine-grained webhooks for the policies.kyverno.io kinds, end to end against
 * `scripts/cluster.sh up DIR --with-bylaw` (Bylaw registers itself: --register --server-url), as
 * Kyverno registers them (pkg/controllers/webhook `buildWebhookRules`):
 * - a ValidatingPolicy with matchConditions gets its own webhook carrying them: an object they
 *   exclude is never sent to Bylaw (the API server evaluates them; Bylaw's metrics count no review),
 *   one they include is denied by that policy's webhook;
 * - a ValidatingPolicy with `webhookConfiguration.timeoutSeconds` gets its own webhook with that
 *   timeout, and the shared webhooks carry neither policy.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { bylawEnv, eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let env: Record<string, string> = {};

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const vpol = (name: string, resource: string, extra: string) => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: ${name}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [${resource}]
${extra}  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: label team is required
`;

const SCOPED = vpol("cel-team-outside-sandbox", "configmaps", `  matchConditions:
  - name: not-in-sandbox
    expression: "object.metadata.namespace != 'cel-sandbox'"
`);

const TIMED = vpol("cel-team-secrets", "secrets", `  webhookConfiguration:
    timeoutSeconds: 17
`);

interface Registered {
  readonly name: string;
  readonly failurePolicy: string;
  readonly matchPolicy: string;
  readonly timeoutSeconds: number;
  readonly matchConditions?: { readonly name: string; readonly expression: string }[];
  readonly clientConfig: { readonly url?: string };
  readonly rules: { readonly apiGroups: string[]; readonly resources: string[]; readonly operations: string[]; readonly scope?: string }[];
}

async function webhooks(): Promise<Registered[]> {
  const json = JSON.parse(await ok(["get", "validatingwebhookconfiguration", "bylaw-resource-validating-webhook-cfg", "-o", "json"])) as { webhooks?: Registered[] };
  return json.webhooks ?? [];
}

/** Admission reviews Bylaw counted for a kind in a namespace (kyverno_admission_requests_total). */
async function reviewsOf(kind: string, namespace: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${env["BYLAW_METRICS_PORT"]}/metrics`)).text();
  return text
    .split("\n")
    .filter((l) => l.startsWith("kyverno_admission_requests_total{") && l.includes(`resource_kind="${kind}"`) && l.includes(`resource_namespace="${namespace}"`))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

const shared = (hooks: readonly Registered[], resource: string): boolean => hooks.some((w) => !w.name.includes("finegrained") && w.rules.some((r) => r.resources.includes(resource)));

describe("fine-grained webhooks for the CEL policy kinds, registered in a real cluster", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
    env = bylawEnv(cluster.dir);
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("a ValidatingPolicy with matchConditions gets its own webhook with them; what they exclude never reaches Bylaw, what they include is denied by it", async () => {
    await ok(["apply", "-f", "-"], SCOPED);
    const own = await eventually("the ValidatingPolicy's fine-grained webhook", 60_000, async () => (await webhooks()).find((w) => w.name === "vpol.validate.bylaw.svc-fail-finegrained-cel-team-outside-sandbox"));
    assert.deepEqual(own.matchConditions, [{ name: "not-in-sandbox", expression: "object.metadata.namespace != 'cel-sandbox'" }]);
    assert.match(own.clientConfig.url ?? "", /\/vpol\/fail\/finegrained\/cel-team-outside-sandbox$/);
    assert.deepEqual(own.rules.flatMap((r) => r.resources), ["configmaps"]);
    assert.deepEqual([own.failurePolicy, own.matchPolicy, own.timeoutSeconds], ["Fail", "Equivalent", 10]);
    assert.ok(!shared(await webhooks(), "configmaps"), "left out of the shared webhooks");

    // The namespace's kube-root-ca.crt ConfigMap and this one are both excluded by the conditions.
    await ok(["create", "namespace", "cel-sandbox"]);
    await ok(["create", "configmap", "unlabeled", "-n", "cel-sandbox", "--from-literal=a=b"]);
    const denied = await current().kubectl(["create", "configmap", "unlabeled", "--from-literal=a=b"]);
    assert.notEqual(denied.code, 0, "an unlabeled ConfigMap outside cel-sandbox was created");
    assert.match(denied.stderr, /admission webhook "vpol\.validate\.bylaw\.svc-fail-finegrained-cel-team-outside-sandbox" denied the request/);
    assert.match(denied.stderr, /label team is required/);
    await ok(["apply", "-f", "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: labeled, namespace: default, labels: {team: shop}}\ndata: {a: b}\n");
    assert.ok((await reviewsOf("ConfigMap", "default")) >= 2, "Bylaw counted the reviews it was sent (the metric is the right one to read)");
    assert.equal(await reviewsOf("ConfigMap", "cel-sandbox"), 0, "the API server sent Bylaw a ConfigMap its conditions exclude");
  });

  test("a ValidatingPolicy with webhookConfiguration.timeoutSeconds gets its own webhook with that timeout", async () => {
    await ok(["apply", "-f", "-"], TIMED);
    const own = await eventually("the timed ValidatingPolicy's webhook", 60_000, async () => (await webhooks()).find((w) => w.name === "vpol.validate.bylaw.svc-fail-finegrained-cel-team-secrets"));
    assert.equal(own.timeoutSeconds, 17);
    assert.deepEqual(own.rules.flatMap((r) => r.resources), ["secrets"]);
    assert.deepEqual(own.matchConditions ?? [], []);
    assert.ok(!shared(await webhooks(), "secrets"), "left out of the shared webhooks");
    const denied = await current().kubectl(["create", "secret", "generic", "unlabeled", "--from-literal=a=b"]);
    assert.notEqual(denied.code, 0, "an unlabeled Secret was created");
    assert.match(denied.stderr, /admission webhook "vpol\.validate\.bylaw\.svc-fail-finegrained-cel-team-secrets" denied the request/);
  });
});
