/**
 * Issue 22 §3 and §6 (first bullet), end to end (`npm run test:cluster`): `bylaw serve --kubeconfig`
 * from the checkout, as a plain process against the real API server, answers AdmissionReviews sent
 * to its /validate/fail endpoint over HTTPS (registering the webhook is another issue):
 * - a ClusterPolicy that counts the Pods in the namespace with apiCall decides on live data and
 *   follows Pods created and deleted;
 * - one reading a configMap entry errors (Kyverno's text) while the ConfigMap is missing, then
 *   follows its creation and edits;
 * - a namespaceSelector follows the namespace's labels;
 * - a Policy in tenant-a that reads a canary ConfigMap in tenant-b (apiCall plain, percent-encoded
 *   dot-segments, a namespace from a variable; configMap) gets rule errors naming the refusal, even
 *   with an apiCall default, and the canary's value appears in no response and no log line.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  eventually,
  startCluster,
  stopCluster,
  type Cluster,
  kubectlOk as kubectlIn,
  started,
} from "./cluster-harness.js";
import { createReview, decide, startServe, type ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
const CANARY = "canary-value-7f3a9c";
let cluster: Cluster | undefined;
let serve: ServeProcess | undefined;
let policyDir = "";

const current = (): Cluster => started(cluster);

function server(): ServeProcess {
  if (serve === undefined) throw new Error("bylaw serve did not start");
  return serve;
}

const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);

const pod = (namespace: string, name: string, labels: Record<string, string> = {}) =>
  createReview({
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: "c", image: "registry.invalid/app:1" }] },
  });
const configMap = (namespace: string, name: string, labels: Record<string, string>) =>
  createReview({ kind: "ConfigMap", metadata: { name, namespace, labels }, data: {} });

/** Waits until the review is decided as wanted (the caches follow the cluster within a moment). */
async function until(what: string, review: () => unknown, allowed: boolean, message?: RegExp): Promise<string> {
  return eventually(what, 30_000, async () => {
    const d = await decide(server(), review());
    return d.allowed === allowed && (message === undefined || message.test(d.message)) ? d.message : undefined;
  });
}

describe("bylaw serve with live context from a real API server", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(
    async () => {
      cluster = await startCluster(buildTimeoutMs);
      console.log(`# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s`);
      for (const ns of ["counted", "apps", "shop", "tenant-a", "tenant-b", "rbac-test"])
        await kubectlOk(["create", "namespace", ns]);
      await kubectlOk(["create", "configmap", "canary", "-n", "tenant-b", `--from-literal=secret=${CANARY}`]);
      await kubectlOk(["create", "configmap", "own", "-n", "tenant-a", "--from-literal=colour=blue"]);
      policyDir = mkdtempSync(join(tmpdir(), "bylaw-live-policies-"));
      for (const [file, text] of Object.entries(POLICIES)) writeFileSync(join(policyDir, file), text);
      const t0 = performance.now();
      serve = await startServe(["--policies", policyDir, "--kubeconfig", cluster.kubeconfig]);
      await eventually("readiness", 60_000, async () =>
        (await server().get("/health/readiness")).status === 200 ? true : undefined,
      );
      console.log(`# bylaw serve ready (caches synced) ${((performance.now() - t0) / 1000).toFixed(1)} s after start`);
    },
    { timeout: buildTimeoutMs + 120_000 },
  );

  after(async () => {
    const code = await serve?.stop();
    if (serve !== undefined) assert.equal(code, 0, `bylaw serve exit code; output:\n${serve.output()}`);
    if (policyDir !== "") rmSync(policyDir, { recursive: true, force: true });
    if (cluster === undefined) return;
    const down = await stopCluster(cluster.dir);
    assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
    rmSync(cluster.dir, { recursive: true, force: true });
  });

  test("apiCall counts the namespace's Pods and follows Pods created and deleted", async () => {
    assert.equal((await decide(server(), pod("counted", "new"))).allowed, true, "no Pods yet");
    await kubectlOk(["run", "one", "-n", "counted", "--image=registry.invalid/app:1"]);
    await until("still allowed with one Pod", () => pod("counted", "new"), true);
    await kubectlOk(["run", "two", "-n", "counted", "--image=registry.invalid/app:1"]);
    const denied = await until(
      "denied once two Pods exist",
      () => pod("counted", "new"),
      false,
      /namespace counted already has 2 Pods/,
    );
    assert.match(denied, /limit-pods-per-namespace/);
    await kubectlOk(["delete", "pod", "two", "-n", "counted", "--grace-period=0", "--force"]);
    await until("allowed again after a delete", () => pod("counted", "new"), true);
  });

  test("a configMap entry: Kyverno's error while it is missing, then its live data", async () => {
    const missing = await decide(server(), configMap("apps", "c", { team: "red" }));
    assert.equal(missing.allowed, false);
    assert.match(
      missing.message,
      /failed to get configmap default\/allowed-teams : configmaps "allowed-teams" not found/,
    );
    await kubectlOk(["create", "configmap", "allowed-teams", "-n", "default", "--from-literal=allowed=red,blue"]);
    await until("red allowed", () => configMap("apps", "c", { team: "red" }), true);
    assert.match(
      (await decide(server(), configMap("apps", "c", { team: "green" }))).message,
      /team green is not in red,blue/,
    );
    await kubectlOk(["patch", "configmap", "allowed-teams", "-n", "default", "-p", '{"data":{"allowed":"green"}}']);
    await until("green allowed after the edit", () => configMap("apps", "c", { team: "green" }), true);
    assert.equal((await decide(server(), configMap("apps", "c", { team: "red" }))).allowed, false);
  });

  test("the namespaceSelector reads the namespace's live labels", async () => {
    assert.equal((await decide(server(), pod("shop", "p"))).allowed, true, "shop is not labelled env=prod");
    await kubectlOk(["label", "namespace", "shop", "env=prod"]);
    await until("an owner label required once shop is prod", () => pod("shop", "p"), false, /prod-needs-owner/);
    assert.equal((await decide(server(), pod("shop", "p", { owner: "me" }))).allowed, true);
    await kubectlOk(["label", "namespace", "shop", "env-"]);
    await until("not required once the label is gone", () => pod("shop", "p"), true);
  });

  test("request.clusterRoles and request.roles come from live RoleBindings and ClusterRoleBindings", async () => {
    const asDora = () =>
      createReview(
        { kind: "ConfigMap", metadata: { name: "c", namespace: "rbac-test" }, data: {} },
        { username: "dora", groups: ["system:authenticated", "qa"] },
      );
    assert.equal((await decide(server(), asDora())).allowed, true, "dora has no binding yet");
    await kubectlOk(["create", "clusterrole", "bylaw-test-editor", "--verb=get", "--resource=configmaps"]);
    await kubectlOk(["create", "clusterrolebinding", "dora-editor", "--clusterrole=bylaw-test-editor", "--user=dora"]);
    await until("denied once dora holds the ClusterRole", asDora, false, /no-configmaps-for-editors/);
    await kubectlOk(["delete", "clusterrolebinding", "dora-editor"]);
    await until("allowed once the binding is gone", asDora, true);
    await kubectlOk(["create", "role", "writer", "-n", "rbac-test", "--verb=create", "--resource=configmaps"]);
    await kubectlOk(["create", "rolebinding", "qa-writer", "-n", "rbac-test", "--role=writer", "--group=qa"]);
    await until("denied once dora's group holds rbac-test:writer", asDora, false, /rbac-test:writer may not/);
  });

  test("a Policy in tenant-a cannot read tenant-b's canary: each attempt is a rule error naming the refusal", async () => {
    const review = createReview({
      kind: "Pod",
      metadata: { name: "p", namespace: "tenant-a", labels: { target: "tenant-b" }, annotations: ATTEMPTS },
      spec: { containers: [{ name: "c", image: "registry.invalid/app:1" }] },
    });
    const d = await decide(server(), review);
    assert.equal(d.allowed, false);
    const expected: Record<string, RegExp> = {
      "api-plain": /may not read namespace "tenant-b"/,
      "api-plain-with-default": /may not read namespace "tenant-b"/,
      "api-encoded-dots": /%2E is not allowed/,
      "api-encoded-slash": /%2F is not allowed/,
      "api-double-encoded": /%25 is not allowed/,
      "api-malformed-escape": /malformed percent-escape/,
      "api-dot-segments": /dot-segments/,
      "api-query": /query strings/,
      "api-fragment": /fragments/,
      "api-cluster-scoped": /not namespaced/,
      "api-namespace-from-label": /may not read namespace "tenant-b"/,
      "configmap-namespace-from-label": /configMap namespace "tenant-b" is different from policy namespace "tenant-a"/,
    };
    for (const [rule, why] of Object.entries(expected)) {
      assert.match(
        d.message,
        new RegExp(`${rule}: [^\\n]*${why.source}`),
        `rule ${rule} is an error naming the refusal; the answer was:\n${d.message}`,
      );
    }
    assert.doesNotMatch(d.message, /own-namespace/, "the rule reading its own namespace passed");
    assert.ok(!d.raw.includes(CANARY), "the canary is in no response");
    assert.ok(!server().output().includes(CANARY), "the canary is in no log line");
  });

  test("a namespaced Policy that visibly names another namespace is refused when the set loads; the last good set stays", async () => {
    writeFileSync(join(policyDir, "tenant-a-literal.yaml"), LITERAL_PEEK);
    const logged = await eventually("the reload to be rejected, in the log", 30_000, async () => {
      const line = server()
        .output()
        .split("\n")
        .find((l) => l.includes("tenant-a-literal.yaml"));
      return line;
    });
    assert.match(logged, /may not read namespace \\"tenant-b\\"/);
    assert.match(logged, /spec\.rules\[0\]\.context\[0\]\.apiCall\.urlPath/);
    assert.equal((await server().get("/health/readiness")).status, 200, "still ready with the last good set");
    assert.equal((await decide(server(), pod("counted", "new"))).allowed, true, "the last good set still answers");
    rmSync(join(policyDir, "tenant-a-literal.yaml"));
  });
});

/** Paths a tenant tries, each from an annotation (a value no load-time check can see). */
const ATTEMPTS: Record<string, string> = {
  plain: "/api/v1/namespaces/tenant-b/configmaps/canary",
  "encoded-dots": "/api/v1/namespaces/tenant-a/configmaps/%2e%2e/%2e%2e/tenant-b/configmaps/canary",
  "encoded-slash": "/api/v1/namespaces/tenant-a%2F..%2Ftenant-b/configmaps/canary",
  "double-encoded": "/api/v1/namespaces/tenant-a/%252e%252e/tenant-b/configmaps/canary",
  "malformed-escape": "/api/v1/namespaces/tenant-a/configmaps/%zz/../../tenant-b/configmaps/canary",
  "dot-segments": "/api/v1/namespaces/tenant-a/../tenant-b/configmaps/canary",
  query: "/api/v1/namespaces/tenant-a/configmaps?fieldSelector=metadata.namespace=tenant-b",
  fragment: "/api/v1/namespaces/tenant-b/configmaps/canary#/api/v1/namespaces/tenant-a",
  "cluster-scoped": "/api/v1/configmaps",
};

const LITERAL_PEEK = `apiVersion: kyverno.io/v1
kind: Policy
metadata: { name: peek-literal, namespace: tenant-a }
spec:
  rules:
    - name: r
      match:
        any:
          - resources: { kinds: [Pod] }
      context:
        - name: v
          apiCall: { urlPath: "/api/v1/namespaces/tenant-b/configmaps/canary", jmesPath: "data.secret" }
      validate:
        deny: {}
`;

const ENFORCE = "validationFailureAction: Enforce\n  background: false";

/** A rule reading entry `v` (a configMap entry is read at `v.data`: a bare `{{ v }}` makes the policy invalid, as in Kyverno). */
function tenantRule(name: string, entry: string, read = "v"): string {
  return `    - name: ${name}
      match:
        any:
          - resources: { kinds: [Pod], operations: [CREATE] }
      context:
        - name: v
${entry}
      validate:
        message: "saw {{ ${read} }}"
        deny:
          conditions:
            any:
              - key: "{{ ${read} }}"
                operator: NotEquals
                value: ""
`;
}

const POLICIES: Record<string, string> = {
  "count-pods.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: { name: limit-pods-per-namespace }
spec:
  ${ENFORCE}
  rules:
    - name: at-most-two
      match:
        any:
          - resources: { kinds: [Pod], operations: [CREATE], namespaces: [counted] }
      context:
        - name: podCount
          apiCall:
            urlPath: "/api/v1/namespaces/{{request.namespace}}/pods"
            jmesPath: "items | length(@)"
      validate:
        message: "namespace {{request.namespace}} already has {{podCount}} Pods (at most 2)"
        deny:
          conditions:
            any:
              - { key: "{{podCount}}", operator: GreaterThanOrEquals, value: 2 }
`,
  "allowed-teams.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: { name: allowed-teams }
spec:
  ${ENFORCE}
  rules:
    - name: team-in-configmap
      match:
        any:
          - resources: { kinds: [ConfigMap], operations: [CREATE], namespaces: [apps] }
      context:
        - name: teams
          configMap: { name: allowed-teams, namespace: default }
      validate:
        message: "team {{request.object.metadata.labels.team || ''}} is not in {{teams.data.allowed}}"
        deny:
          conditions:
            all:
              - key: "{{request.object.metadata.labels.team || ''}}"
                operator: AnyNotIn
                value: "{{teams.data.allowed | split(@, ',')}}"
`,
  "no-configmaps-for-editors.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: { name: no-configmaps-for-editors }
spec:
  ${ENFORCE}
  rules:
    - name: editors
      match:
        any:
          - resources: { kinds: [ConfigMap], operations: [CREATE], namespaces: [rbac-test] }
            clusterRoles: [bylaw-test-editor]
      validate:
        message: "editors may not create ConfigMaps here"
        deny: {}
    - name: writers
      match:
        any:
          - resources: { kinds: [ConfigMap], operations: [CREATE], namespaces: [rbac-test] }
      validate:
        message: "{{ request.roles | join(',', @) }} may not create ConfigMaps here"
        deny:
          conditions:
            any:
              - { key: "rbac-test:writer", operator: AnyIn, value: "{{ request.roles }}" }
`,
  "prod-needs-owner.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: { name: prod-needs-owner }
spec:
  ${ENFORCE}
  rules:
    - name: owner-label
      match:
        any:
          - resources:
              kinds: [Pod]
              operations: [CREATE]
              namespaceSelector: { matchLabels: { env: prod } }
      validate:
        message: "Pods in prod namespaces need an owner label"
        pattern: { metadata: { labels: { owner: "?*" } } }
`,
  "tenant-a-peeks.yaml": `apiVersion: kyverno.io/v1
kind: Policy
metadata: { name: peek, namespace: tenant-a }
spec:
  ${ENFORCE}
  rules:
${Object.keys(ATTEMPTS)
  .map((k) =>
    tenantRule(
      `api-${k}`,
      `          apiCall: { urlPath: "{{ request.object.metadata.annotations.\\"${k}\\" }}", jmesPath: "data.secret" }`,
    ),
  )
  .join("\n")}
${tenantRule("api-plain-with-default", `          apiCall: { urlPath: "{{ request.object.metadata.annotations.plain }}", jmesPath: "data.secret", default: "" }`)}
${tenantRule("api-namespace-from-label", `          apiCall: { urlPath: "/api/v1/namespaces/{{request.object.metadata.labels.target}}/configmaps/canary", jmesPath: "data.secret" }`)}
${tenantRule("configmap-namespace-from-label", `          configMap: { name: canary, namespace: "{{request.object.metadata.labels.target}}" }`, "v.data.secret")}
    - name: own-namespace
      match:
        any:
          - resources: { kinds: [Pod], operations: [CREATE] }
      context:
        - name: own
          apiCall: { urlPath: "/api/v1/namespaces/tenant-a/configmaps/own", jmesPath: "data.colour" }
        - name: ownCm
          configMap: { name: own }
      validate:
        message: "own namespace data is readable"
        deny:
          conditions:
            any:
              - { key: "{{ own }}-{{ ownCm.data.colour }}", operator: NotEquals, value: "blue-blue" }
`,
};
