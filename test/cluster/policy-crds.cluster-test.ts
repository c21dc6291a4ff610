/**
 * Issue 22 §4 and the PolicyException flags of §6, end to end (`npm run test:cluster`): Kyverno's
 * CRDs (deploy/crds) on a real API server, `bylaw serve --kubeconfig` (no --policies) as a process,
 * policies applied with kubectl, AdmissionReviews posted to its /validate/fail over HTTPS
 * (registering the webhook is another issue):
 * - a require-labels ClusterPolicy (Enforce) shows Ready True in its status and in `kubectl get
 *   cpol`, with its autogen rules and rule counts; an unlabeled Pod is denied with Kyverno's
 *   message naming the policy, a labeled one allowed;
 * - an invalid policy (a JMESPath that does not parse: the CRD schema lets it through) shows Ready
 *   False with the reason, and is not served; fixing it serves it; updates and deletes are followed;
 * - a PolicyException in a namespace not given to --exception-namespace is logged as ignored and
 *   not honoured; one in a listed namespace is;
 * - a policies.kyverno.io PolicyException (listed namespace) for a ValidatingPolicy lets through the
 *   Pods its matchConditions select, the others stay denied; in a namespace not listed it is ignored.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../deploy/render.js";
import {
  crdsEstablished,
  eventually,
  startCluster,
  stopCluster,
  type Cluster,
  kubectlOk as kubectlIn,
  started,
} from "./cluster-harness.js";
import { createReview, decide, startServe, type ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let serve: ServeProcess | undefined;

const current = (): Cluster => started(cluster);
const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);

function server(): ServeProcess {
  if (serve === undefined) throw new Error("bylaw serve did not start");
  return serve;
}

const pod = (namespace: string, name: string, labels: Record<string, string> = {}) =>
  createReview({
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: "c", image: "registry.invalid/app:1" }] },
  });
const configMap = (namespace: string, name: string) =>
  createReview({ kind: "ConfigMap", metadata: { name, namespace }, data: {} });

async function until(what: string, review: () => unknown, allowed: boolean, message?: RegExp): Promise<string> {
  return eventually(what, 30_000, async () => {
    const d = await decide(server(), review());
    return d.allowed === allowed && (message === undefined || message.test(d.message)) ? d.message : undefined;
  });
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
}

/** The Ready condition of a ClusterPolicy once it is for its current generation. */
async function readyOf(
  name: string,
  status: "True" | "False",
): Promise<{ condition: Condition; object: { status: Record<string, unknown> } }> {
  return eventually(`ClusterPolicy ${name} Ready ${status}`, 30_000, async () => {
    const object = JSON.parse(await kubectlOk(["get", "cpol", name, "-o", "json"])) as {
      metadata: { generation: number };
      status?: { conditions?: Condition[] } & Record<string, unknown>;
    };
    const condition = object.status?.conditions?.find((c) => c.type === "Ready");
    return condition?.status === status && condition.observedGeneration === object.metadata.generation
      ? { condition, object: { status: object.status ?? {} } }
      : undefined;
  });
}

const REQUIRE_LABELS = (message: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-labels
spec:
  rules:
  - name: check-for-labels
    match:
      any:
      - resources:
          kinds: [Pod]
    validate:
      failureAction: Enforce
      message: "${message}"
      pattern:
        metadata:
          labels:
            app.kubernetes.io/name: "?*"
`;

/** Denies every ConfigMap in namespace apps; `key` is the JMESPath of its second rule (invalid when it does not parse). */
const DENY_CONFIGMAPS = (key: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: deny-configmaps
spec:
  rules:
  - name: no-configmaps
    match:
      any:
      - resources:
          kinds: [ConfigMap]
          namespaces: [apps]
    validate:
      failureAction: Enforce
      message: "no ConfigMaps here"
      deny: {}
  - name: second
    match:
      any:
      - resources:
          kinds: [ConfigMap]
          namespaces: [apps]
    validate:
      failureAction: Enforce
      message: "never"
      deny:
        conditions:
          any:
          - key: "${key}"
            operator: Equals
            value: "never-this-value"
`;

const EXCEPTION = (namespace: string) => `apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: allow-configmaps
  namespace: ${namespace}
spec:
  exceptions:
  - policyName: deny-configmaps
    ruleNames: [no-configmaps]
  match:
    any:
    - resources:
        kinds: [ConfigMap]
        namespaces: [apps]
`;

/** A ValidatingPolicy requiring label team on Pods in namespace cel-apps. */
const REQUIRE_TEAM_VPOL = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: require-team
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [pods]
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: cel-apps
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: label team is required
`;

const CEL_EXCEPTION = (namespace: string) => `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata:
  name: allow-batch
  namespace: ${namespace}
spec:
  policyRefs:
  - kind: ValidatingPolicy
    name: require-team
  matchConditions:
  - name: batch-pods
    expression: "object.metadata.name.startsWith('batch-')"
`;

describe(
  "bylaw serve with policies from the cluster (Kyverno's CRDs)",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(
      async () => {
        cluster = await startCluster(buildTimeoutMs);
        console.log(`# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s`);
        await kubectlOk(["apply", "--server-side", "-k", join(repoRoot(), "deploy", "crds")]);
        await crdsEstablished(cluster, ["crd", "--all"]);
        for (const ns of ["apps", "team-a", "policy-exceptions", "cel-apps"])
          await kubectlOk(["create", "namespace", ns]);
        const t0 = performance.now();
        serve = await startServe([
          "--kubeconfig",
          cluster.kubeconfig,
          "--enablePolicyException",
          "--exception-namespace",
          "policy-exceptions",
        ]);
        await eventually("readiness", 60_000, async () =>
          (await server().get("/health/readiness")).status === 200 ? true : undefined,
        );
        console.log(
          `# bylaw serve ready (policy watches synced) ${((performance.now() - t0) / 1000).toFixed(1)} s after start`,
        );
      },
      { timeout: buildTimeoutMs + 120_000 },
    );

    after(async () => {
      const code = await serve?.stop();
      if (serve !== undefined) assert.equal(code, 0, `bylaw serve exit code; output:\n${serve.output()}`);
      if (cluster === undefined) return;
      const down = await stopCluster(cluster.dir);
      assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
      rmSync(cluster.dir, { recursive: true, force: true });
    });

    test("a require-labels ClusterPolicy is Ready (status and kubectl get cpol) and denies an unlabeled Pod with Kyverno's message", async () => {
      await kubectlOk(["apply", "-f", "-"], REQUIRE_LABELS("label app.kubernetes.io/name is required"));
      const { condition, object } = await readyOf("require-labels", "True");
      assert.equal(condition.reason, "Succeeded");
      assert.equal(condition.message, "Ready");
      assert.deepEqual(object.status["rulecount"], { validate: 1, generate: 0, mutate: 0, verifyimages: 0 });
      const autogen = (object.status["autogen"] as { rules: { name: string }[] }).rules.map((r) => r.name);
      assert.deepEqual(autogen, ["autogen-check-for-labels", "autogen-cronjob-check-for-labels"]);
      const table = await kubectlOk(["get", "cpol", "require-labels"]);
      assert.match(table, /READY/);
      assert.match(table.split("\n")[1] ?? "", /\bTrue\b/);
      const denied = await until("an unlabeled Pod denied", () => pod("apps", "unlabeled"), false);
      assert.match(denied, /resource Pod\/apps\/unlabeled was blocked due to the following policies/);
      assert.match(
        denied,
        /require-labels:\n {2}check-for-labels: 'validation error: label app.kubernetes.io\/name is required. rule check-for-labels failed at path \/metadata\/labels\/app.kubernetes.io\/name\/'/,
      );
      assert.equal((await decide(server(), pod("apps", "labeled", { "app.kubernetes.io/name": "x" }))).allowed, true);
    });

    test("status is not rewritten while nothing changes (no write loop)", async () => {
      const rv = async () =>
        (
          JSON.parse(await kubectlOk(["get", "cpol", "require-labels", "-o", "json"])) as {
            metadata: { resourceVersion: string };
          }
        ).metadata.resourceVersion;
      const before = await rv();
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal(await rv(), before);
    });

    test("an invalid policy is Ready False with the reason and is not served; fixed, it is served", async () => {
      await kubectlOk(["apply", "-f", "-"], DENY_CONFIGMAPS("{{ request.object.metadata.[ }}"));
      const { condition } = await readyOf("deny-configmaps", "False");
      assert.equal(condition.reason, "Failed");
      assert.match(condition.message, /^not served by Bylaw: spec\.rules\[1\]/);
      const table = await kubectlOk(["get", "cpol", "deny-configmaps"]);
      assert.match(table.split("\n")[1] ?? "", /\bFalse\b/);
      // Not served: its first rule would deny every ConfigMap in apps.
      assert.equal((await decide(server(), configMap("apps", "c1"))).allowed, true);
      const ready = await server().get("/health/readiness");
      assert.equal(ready.status, 200, "the other policies are served");
      assert.ok(server().output().includes("policy not served"), "the problem is logged");

      await kubectlOk(["apply", "-f", "-"], DENY_CONFIGMAPS("{{ request.object.metadata.name }}"));
      await readyOf("deny-configmaps", "True");
      const denied = await until("served once fixed", () => configMap("apps", "c2"), false, /no ConfigMaps here/);
      assert.match(denied, /deny-configmaps/);
    });

    test("a PolicyException in a namespace not listed is ignored (and logged); in a listed one it is honoured", async () => {
      await kubectlOk(["apply", "-f", "-"], EXCEPTION("team-a"));
      await eventually("the ignored exception logged", 30_000, async () =>
        server().output().includes("PolicyException team-a/allow-configmaps") ? true : undefined,
      );
      const line =
        server()
          .output()
          .split("\n")
          .find((l) => l.includes("PolicyException team-a/allow-configmaps")) ?? "";
      assert.ok(
        line.includes("PolicyException ignored") && line.includes("is not one PolicyExceptions are honoured from"),
        line,
      );
      assert.equal((await decide(server(), configMap("apps", "c3"))).allowed, false);
      await kubectlOk(["apply", "-f", "-"], EXCEPTION("policy-exceptions"));
      await until("allowed by the listed exception", () => configMap("apps", "c4"), true);
      await kubectlOk(["delete", "polex", "allow-configmaps", "-n", "policy-exceptions"]);
      await until(
        "denied again once the exception is deleted",
        () => configMap("apps", "c5"),
        false,
        /no ConfigMaps here/,
      );
    });

    test("a policies.kyverno.io PolicyException in a listed namespace lets the Pods its matchConditions select through a ValidatingPolicy; not listed, it is ignored", async () => {
      await kubectlOk(["apply", "-f", "-"], REQUIRE_TEAM_VPOL);
      const labels = { "app.kubernetes.io/name": "x" };
      await until(
        "an unlabeled Pod denied by the ValidatingPolicy",
        () => pod("cel-apps", "batch-1", labels),
        false,
        /require-team/,
      );
      await kubectlOk(["apply", "-f", "-"], CEL_EXCEPTION("team-a"));
      await eventually("the ignored CEL exception logged", 30_000, async () =>
        server().output().includes("PolicyException (policies.kyverno.io) team-a/allow-batch") ? true : undefined,
      );
      assert.equal(
        (await decide(server(), pod("cel-apps", "batch-2", labels))).allowed,
        false,
        "an exception outside --exception-namespace is not honoured",
      );

      await kubectlOk(["apply", "-f", "-"], CEL_EXCEPTION("policy-exceptions"));
      await until("a Pod its matchConditions select is allowed", () => pod("cel-apps", "batch-3", labels), true);
      const other = await decide(server(), pod("cel-apps", "web-1", labels));
      assert.equal(other.allowed, false, "a Pod the matchConditions do not select stays denied");
      assert.match(other.message, /require-team/);
      await kubectlOk(["delete", "policyexceptions.policies.kyverno.io", "allow-batch", "-n", "policy-exceptions"]);
      await until(
        "denied again once the exception is deleted",
        () => pod("cel-apps", "batch-4", labels),
        false,
        /require-team/,
      );
      await kubectlOk(["delete", "vpol", "require-team"]);
    });

    test("updates and deletes of a policy are followed", async () => {
      await kubectlOk(["apply", "-f", "-"], REQUIRE_LABELS("a name label, please"));
      await until("the updated message", () => pod("apps", "u1"), false, /a name label, please/);
      await kubectlOk(["delete", "cpol", "require-labels"]);
      await until("allowed once deleted", () => pod("apps", "u2"), true);
    });

    test("a namespaced Policy is served for its own namespace only", async () => {
      await kubectlOk(
        ["apply", "-f", "-"],
        `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: team-label
  namespace: team-a
spec:
  rules:
  - name: team
    match:
      any:
      - resources:
          kinds: [Pod]
    validate:
      failureAction: Enforce
      message: "label team is required"
      pattern:
        metadata:
          labels:
            team: "?*"
`,
      );
      await eventually("Policy team-a/team-label Ready", 30_000, async () => {
        const out = JSON.parse(await kubectlOk(["get", "pol", "team-label", "-n", "team-a", "-o", "json"])) as {
          status?: { conditions?: Condition[] };
        };
        return out.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true
          ? true
          : undefined;
      });
      await until("denied in team-a", () => pod("team-a", "p1"), false, /label team is required/);
      assert.equal((await decide(server(), pod("apps", "p2"))).allowed, true);
    });
  },
);
