/**
 * Self-registration beyond the shared webhooks, end to end against
 * `scripts/cluster.sh up DIR --with-bylaw` (Bylaw registers itself: --register --server-url):
 * - a ClusterPolicy with `webhookConfiguration.matchConditions` gets its own ("fine-grained")
 *   webhook carrying those conditions: a request they exclude is never sent to Bylaw (the API server
 *   evaluates them; Bylaw's metrics count no review for it), one they include is decided by the policy;
 * - a ValidatingPolicy with matchConditions gets its own webhook too (`vpol.validate.bylaw.svc-…`),
 *   carrying them: an object they exclude is never sent to Bylaw, one they include is denied by
 *   that webhook; one with `webhookConfiguration.timeoutSeconds` gets its own webhook with that
 *   timeout; the shared webhooks carry neither (Kyverno `buildWebhookRules`);
 * - a Pod ValidatingPolicy whose matchCondition name has 62 characters, and whose own name has 62
 *   (Kyverno's `autogen-…` names would be past a qualified name's 63): the API server accepts the
 *   configuration, with every other policy's webhook still in it, and the policy denies what it should;
 * - a policy on a custom resource's kind is registered as discovery serves it (the CRD's plural,
 *   group and scope, not every resource of the group); a policy on a kind nothing serves is refused
 *   at kubectl apply (as Kyverno refuses it), and one whose CRD is deleted after it got in is
 *   registered wide until the CRD is back, then for it, within the rediscovery interval.
 *
 * Each own webhook also carries Bylaw's condition that leaves the deletion of its own objects alone
 * (issue 32 §9, tenant-registration.cluster-test.ts).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bylawEnv, eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";
import { type Registered, reviewsOf as countedReviews, validatingWebhooks } from "./registered-webhooks.js";
import { OWN_OBJECTS_CONDITION } from "../../src/server/registration/build-configurations.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let env: Record<string, string> = {};

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const SCOPED = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: team-outside-sandbox
spec:
  background: false
  webhookConfiguration:
    failurePolicy: Fail
    matchConditions:
      - name: not-in-sandbox
        expression: "object.metadata.namespace != 'sandbox'"
  rules:
    - name: require-team
      match:
        any:
          - resources:
              kinds: [ConfigMap]
      validate:
        failureAction: Enforce
        message: "label team is required"
        pattern:
          metadata:
            labels:
              team: "?*"
`;

const crd = (kind: string, plural: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()}, listKind: ${kind}List}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`;

const onKind = (name: string, kind: string): string => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
spec:
  background: false
  rules:
    - name: require-owner
      match:
        any:
          - resources:
              kinds: [${kind}]
      validate:
        failureAction: Enforce
        message: "label owner is required"
        pattern:
          metadata:
            labels:
              owner: "?*"
`;

const vpol = (name: string, resource: string, extra: string) => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: ${name}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [${resource}]}]
${extra}  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: label team is required
`;

const CEL_SCOPED = vpol(
  "cel-team-outside-sandbox",
  "secrets",
  `  matchConditions:
  - name: not-in-sandbox
    expression: "object.metadata.namespace != 'cel-sandbox'"
`,
);

const CEL_TIMED = vpol(
  "cel-team-quotas",
  "resourcequotas",
  `  webhookConfiguration:
    timeoutSeconds: 17
`,
);

const LONG_CONDITION = `not-in-the-sandbox-namespace-${"x".repeat(27)}-check`;
const LONG_POLICY = `pods-need-a-team-label-${"y".repeat(33)}-check`;
const CEL_LONG_NAMES = vpol(
  LONG_POLICY,
  "pods",
  `  matchConditions:
  - name: ${LONG_CONDITION}
    expression: "object.metadata.namespace != 'long-sandbox'"
`,
);

/** Kubernetes' qualified name, as the API server checks a matchCondition's name. */
const QUALIFIED =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

const webhooks = (): Promise<Registered[]> => validatingWebhooks(current());
const reviewsOf = (kind: string, namespace: string): Promise<number> =>
  countedReviews(env["BYLAW_METRICS_PORT"], kind, namespace);

const shared = (hooks: readonly Registered[], resource: string): boolean =>
  hooks.some((w) => !w.name.includes("finegrained") && w.rules.some((r) => r.resources.includes(resource)));

const widget = (kind: string, name: string, labels = ""): string => `apiVersion: example.com/v1
kind: ${kind}
metadata: {name: ${name}, namespace: default${labels === "" ? "" : `, labels: {${labels}}`}}
spec: {size: 1}
`;

describe(
  "fine-grained webhooks and kinds from discovery, registered in a real cluster",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
      env = bylawEnv(cluster.dir);
    });

    after(async () => {
      await tearDown(cluster);
    });

    test("a policy with matchConditions gets its own webhook with them; what they exclude never reaches Bylaw, what they include is decided by the policy", async () => {
      await ok(["create", "namespace", "sandbox"]);
      await ok(["apply", "-f", "-"], SCOPED);
      const own = await eventually("the fine-grained webhook", 60_000, async () =>
        (await webhooks()).find((w) => w.name === "validate.bylaw.svc-fail-finegrained-team-outside-sandbox"),
      );
      assert.deepEqual(own.matchConditions, [
        { name: "not-in-sandbox", expression: "object.metadata.namespace != 'sandbox'" },
        OWN_OBJECTS_CONDITION,
      ]);
      assert.match(own.clientConfig.url ?? "", /\/validate\/fail\/finegrained\/team-outside-sandbox$/);
      assert.deepEqual(
        own.rules.flatMap((r) => r.resources),
        ["configmaps"],
      );
      assert.ok(
        !(await webhooks()).some(
          (w) => !w.name.includes("finegrained") && w.rules.some((r) => r.resources.includes("configmaps")),
        ),
        "left out of the shared webhooks",
      );

      await ok(["create", "configmap", "unlabeled", "-n", "sandbox", "--from-literal=a=b"]);
      const denied = await current().kubectl(["create", "configmap", "unlabeled", "--from-literal=a=b"]);
      assert.notEqual(denied.code, 0, "an unlabeled ConfigMap outside sandbox was created");
      assert.match(
        denied.stderr,
        /admission webhook "validate\.bylaw\.svc-fail-finegrained-team-outside-sandbox" denied the request/,
      );
      assert.match(denied.stderr, /team-outside-sandbox:\s+require-team: 'validation error: label team is required/);
      await ok(
        ["apply", "-f", "-"],
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: labeled, namespace: default, labels: {team: shop}}\ndata: {a: b}\n",
      );
      assert.ok(
        (await reviewsOf("ConfigMap", "default")) >= 2,
        "Bylaw counted the reviews it was sent (the metric is the right one to read)",
      );
      assert.equal(
        await reviewsOf("ConfigMap", "sandbox"),
        0,
        "the API server sent Bylaw a ConfigMap its conditions exclude",
      );
    });

    test("a policy on a CRD's kind is registered for exactly that resource, as discovery serves it", async () => {
      await ok(["apply", "-f", "-"], crd("Widget", "widgets"));
      await eventually("the Widget CRD to be served", 30_000, async () =>
        (await current().kubectl(["get", "widgets"])).code === 0 ? true : undefined,
      );
      await ok(["apply", "-f", "-"], onKind("widgets-need-owner", "Widget"));
      const rules = await eventually("a webhook rule for widgets", 60_000, async () => {
        const found = (await webhooks()).flatMap((w) => w.rules).filter((r) => r.resources.includes("widgets"));
        return found.length > 0 ? found : undefined;
      });
      assert.deepEqual(
        rules.map((r) => [r.apiGroups, r.resources, r.scope]),
        [[["example.com"], ["widgets"], "Namespaced"]],
      );
      assert.ok(
        !(await webhooks()).some((w) =>
          w.rules.some((r) => r.apiGroups.includes("example.com") && r.resources.includes("*")),
        ),
        "not every resource of the group",
      );
      const denied = await current().kubectl(["apply", "-f", "-"], widget("Widget", "w1"));
      assert.notEqual(denied.code, 0, "a Widget without an owner was created");
      assert.match(denied.stderr, /widgets-need-owner:\s+require-owner: 'validation error: label owner is required/);
      await ok(["apply", "-f", "-"], widget("Widget", "w2", "owner: me"));
    });

    test("a policy whose CRD goes away and comes back: registered wide and logged meanwhile, then for exactly the new resource", async () => {
      // A policy on a kind nothing serves is refused at kubectl apply, as Kyverno refuses it (issue 33 §3)…
      const refused = await current().kubectl(["apply", "-f", "-"], onKind("gizmos-need-owner", "Gizmo"));
      assert.notEqual(refused.code, 0, "a policy on an unserved kind was admitted");
      assert.match(refused.stderr, /unable to convert GVK to GVR for kinds Gizmo/);
      // …so it gets in while its CRD exists, and the CRD is then deleted.
      await ok(["apply", "-f", "-"], crd("Gizmo", "gizmos"));
      await eventually("the Gizmo CRD to be served", 30_000, async () =>
        (await current().kubectl(["get", "gizmos"])).code === 0 ? true : undefined,
      );
      await eventually("the policy on Gizmo admitted", 60_000, async () =>
        (await current().kubectl(["apply", "-f", "-"], onKind("gizmos-need-owner", "Gizmo"))).code === 0
          ? true
          : undefined,
      );
      await ok(["delete", "crd", "gizmos.example.com"]);
      const log = join(current().dir, "logs", "bylaw.log");
      await eventually("the log to say Gizmo is registered wide", 90_000, async () =>
        /kind \\?"Gizmo\\?" is served by no resource the API server's discovery lists \(yet\)/.test(
          readFileSync(log, "utf8"),
        )
          ? true
          : undefined,
      );
      await ok(["apply", "-f", "-"], crd("Gizmo", "gizmos"));
      const rules = await eventually("a webhook rule for gizmos (within the 30 s rediscovery)", 90_000, async () => {
        const found = (await webhooks()).flatMap((w) => w.rules).filter((r) => r.resources.includes("gizmos"));
        return found.length > 0 ? found : undefined;
      });
      // One rule may carry both custom resources of the group (same group, version, scope and operations).
      assert.deepEqual(
        rules.map((r) => [r.apiGroups, r.resources.filter((x) => x === "gizmos"), r.scope]),
        [[["example.com"], ["gizmos"], "Namespaced"]],
      );
      assert.ok(
        !(await webhooks()).some((w) => w.rules.some((r) => r.resources.includes("*"))),
        "the wide registration is gone",
      );
      const denied = await current().kubectl(["apply", "-f", "-"], widget("Gizmo", "g1"));
      assert.notEqual(denied.code, 0, "a Gizmo without an owner was created");
      assert.match(denied.stderr, /gizmos-need-owner:\s+require-owner/);
    });

    test("a ValidatingPolicy with matchConditions gets its own webhook with them; what they exclude never reaches Bylaw, what they include is denied by it", async () => {
      await ok(["apply", "-f", "-"], CEL_SCOPED);
      const own = await eventually("the ValidatingPolicy's fine-grained webhook", 60_000, async () =>
        (await webhooks()).find((w) => w.name === "vpol.validate.bylaw.svc-fail-finegrained-cel-team-outside-sandbox"),
      );
      assert.deepEqual(own.matchConditions, [
        { name: "not-in-sandbox", expression: "object.metadata.namespace != 'cel-sandbox'" },
        OWN_OBJECTS_CONDITION,
      ]);
      assert.match(own.clientConfig.url ?? "", /\/vpol\/fail\/finegrained\/cel-team-outside-sandbox$/);
      assert.deepEqual(
        own.rules.flatMap((r) => r.resources),
        ["secrets"],
      );
      assert.deepEqual([own.failurePolicy, own.matchPolicy, own.timeoutSeconds], ["Fail", "Equivalent", 10]);
      assert.ok(!shared(await webhooks(), "secrets"), "left out of the shared webhooks");

      await ok(["create", "namespace", "cel-sandbox"]);
      await ok(["create", "secret", "generic", "unlabeled", "-n", "cel-sandbox", "--from-literal=a=b"]);
      const denied = await current().kubectl(["create", "secret", "generic", "unlabeled", "--from-literal=a=b"]);
      assert.notEqual(denied.code, 0, "an unlabeled Secret outside cel-sandbox was created");
      assert.match(
        denied.stderr,
        /admission webhook "vpol\.validate\.bylaw\.svc-fail-finegrained-cel-team-outside-sandbox" denied the request/,
      );
      assert.match(denied.stderr, /label team is required/);
      await ok(
        ["apply", "-f", "-"],
        "apiVersion: v1\nkind: Secret\nmetadata: {name: labeled, namespace: default, labels: {team: shop}}\nstringData: {a: b}\n",
      );
      assert.ok((await reviewsOf("Secret", "default")) >= 2, "Bylaw counted the reviews it was sent");
      assert.equal(
        await reviewsOf("Secret", "cel-sandbox"),
        0,
        "the API server sent Bylaw a Secret its conditions exclude",
      );
    });

    test("a ValidatingPolicy with webhookConfiguration.timeoutSeconds gets its own webhook with that timeout", async () => {
      await ok(["apply", "-f", "-"], CEL_TIMED);
      const own = await eventually("the timed ValidatingPolicy's webhook", 60_000, async () =>
        (await webhooks()).find((w) => w.name === "vpol.validate.bylaw.svc-fail-finegrained-cel-team-quotas"),
      );
      assert.equal(own.timeoutSeconds, 17);
      assert.deepEqual(
        own.rules.flatMap((r) => r.resources),
        ["resourcequotas"],
      );
      assert.deepEqual(own.matchConditions ?? [], [OWN_OBJECTS_CONDITION], "Bylaw's own condition only");
      assert.ok(!shared(await webhooks(), "resourcequotas"), "left out of the shared webhooks");
      const denied = await current().kubectl(["create", "quota", "unlabeled", "--hard=pods=10"]);
      assert.notEqual(denied.code, 0, "an unlabeled ResourceQuota was created");
      assert.match(
        denied.stderr,
        /admission webhook "vpol\.validate\.bylaw\.svc-fail-finegrained-cel-team-quotas" denied the request/,
      );
    });

    test("a Pod ValidatingPolicy with a 62-character condition name (and policy name): the API server accepts the configuration, every policy's webhook in it", async () => {
      assert.equal(LONG_CONDITION.length, 62);
      assert.equal(LONG_POLICY.length, 62);
      await ok(["apply", "-f", "-"], CEL_LONG_NAMES);
      const name = `vpol.validate.bylaw.svc-fail-finegrained-${LONG_POLICY}`;
      const own = await eventually("the long-named policy's webhook", 60_000, async () =>
        (await webhooks()).find((w) => w.name === name),
      );
      const names = (own.matchConditions ?? []).map((c) => c.name).filter((n) => n !== OWN_OBJECTS_CONDITION.name);
      assert.equal(names.length, 3, names.join(", "));
      for (const n of names) assert.match(n, QUALIFIED, `${n} is a qualified name`);
      assert.equal(new Set(names).size, 3);
      assert.ok(
        names.every((n) => /^autogen-.*-[0-9a-f]{12}$/.test(n)),
        names.join(", "),
      );
      const all = (await webhooks()).map((w) => w.name);
      for (const other of [
        "validate.bylaw.svc-fail-finegrained-team-outside-sandbox",
        "vpol.validate.bylaw.svc-fail-finegrained-cel-team-outside-sandbox",
        "vpol.validate.bylaw.svc-fail-finegrained-cel-team-quotas",
      ]) {
        assert.ok(all.includes(other), `${other} is still registered beside it`);
      }

      await ok(["create", "namespace", "long-sandbox"]);
      const pod = (ns: string): string =>
        `apiVersion: v1\nkind: Pod\nmetadata: {name: unlabeled, namespace: ${ns}}\nspec: {containers: [{name: c, image: nginx}]}\n`;
      await ok(["apply", "-f", "-"], pod("long-sandbox"));
      const denied = await current().kubectl(["apply", "-f", "-"], pod("default"));
      assert.notEqual(denied.code, 0, "an unlabeled Pod outside long-sandbox was created");
      assert.match(denied.stderr, new RegExp(`admission webhook "${name.replace(/\./g, "\\.")}" denied the request`));
      assert.match(denied.stderr, /label team is required/);
    });
  },
);
