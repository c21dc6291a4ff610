/**
 * Issue 20, `bylaw apply --cluster` end to end (`npm run test:cluster`), against the real API
 * server of `scripts/cluster.sh up` (no Bylaw in the cluster): the checkout's `bylaw apply` lists
 * the objects its policies match through the kubeconfig and checks them as it checks files:
 * - the unlabeled Pod fails (exit 1), the labeled ones pass; `-n` narrows to one namespace;
 * - `-r NAME` keeps the objects of that name, an unknown name is exit 2; `-r FILE` adds manifests;
 * - a configMap entry reads the live ConfigMap (and follows an edit), an apiCall GET counts live Pods;
 * - a user the cluster forbids to list Pods gets exit 2 naming the verb and resource;
 * - with --registry, an imageRegistry entry and CEL image.GetMetadata read the images of the live Pods
 *   from a registry the test serves (test/support/test-registry.ts), beside a live configMap read.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  eventually,
  kubectlOk as kubectlIn,
  run,
  startCluster,
  started,
  stopCluster,
  type Cluster,
  type RunResult,
} from "./cluster-harness.js";
import { TestRegistry } from "../support/test-registry.js";
import { CEL_NO_ROOT_POLICY } from "../support/image-policies.js";

const buildTimeoutMs = 90 * 60_000;
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
let cluster: Cluster | undefined;
let dir = "";

const current = (): Cluster => started(cluster);
const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);
const apply = (
  args: readonly string[],
  kubeconfig = current().kubeconfig,
  env?: NodeJS.ProcessEnv,
): Promise<RunResult> =>
  run(
    process.execPath,
    [join(repoRoot, "bin", "bylaw.js"), "apply", ...args, "--cluster", "--kubeconfig", kubeconfig],
    120_000,
    undefined,
    env,
  );

interface Results {
  readonly results: readonly {
    readonly policy: string;
    readonly resource: string;
    readonly result: string;
    readonly message: string;
  }[];
}

/** The results for objects in the test's namespaces, as `resource result` lines, sorted. */
function rows(r: RunResult): string[] {
  const out = JSON.parse(r.stdout) as Results;
  return out.results
    .filter((x) => /\/(apps-a|apps-b)\//.test(x.resource))
    .map((x) => `${x.policy} ${x.resource} ${x.result}`)
    .sort();
}

const REQUIRE_LABELS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-labels}
spec:
  validationFailureAction: Enforce
  rules:
    - name: team
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: the label team is required
        pattern: {metadata: {labels: {team: "?*"}}}
`;

const LIVE_CONTEXT = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: live-context}
spec:
  validationFailureAction: Enforce
  rules:
    - name: allowed-team
      match: {any: [{resources: {kinds: [Pod], namespaces: [apps-a]}}]}
      preconditions: {all: [{key: "{{ request.object.metadata.labels.team || '' }}", operator: NotEquals, value: ""}]}
      context:
        - name: settings
          configMap: {name: teams, namespace: default}
      validate:
        message: "team {{ request.object.metadata.labels.team }} is not in {{ settings.data.allowed }}"
        deny:
          conditions:
            all: [{key: "{{ request.object.metadata.labels.team }}", operator: AnyNotIn, value: "{{ split(settings.data.allowed, ',') }}"}]
    - name: pod-count
      match: {any: [{resources: {kinds: [Pod], namespaces: [apps-a]}}]}
      context:
        - name: pods
          apiCall:
            urlPath: "/api/v1/namespaces/{{ request.namespace }}/pods"
            jmesPath: "items | length(@)"
      validate:
        message: "{{ request.namespace }} has {{ pods }} Pods"
        deny:
          conditions:
            all: [{key: "{{ pods }}", operator: NotEquals, value: 2}]
`;

const pod = (ns: string, name: string, labels: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}, labels: {${labels}}}
spec: {containers: [{name: c, image: registry.invalid/app:1}]}
`;

describe("bylaw apply --cluster against a real API server", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs);
    console.log(`# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s`);
    dir = mkdtempSync(join(tmpdir(), "bylaw-apply-cluster-"));
    writeFileSync(join(dir, "require-labels.yaml"), REQUIRE_LABELS);
    writeFileSync(join(dir, "live-context.yaml"), LIVE_CONTEXT);
    for (const ns of ["apps-a", "apps-b"]) await kubectlOk(["create", "namespace", ns]);
    await kubectlOk(["create", "configmap", "teams", "-n", "default", "--from-literal=allowed=a,b"]);
    // Pods need the namespace's default ServiceAccount, which the controller-manager creates a moment later.
    const pods =
      pod("apps-a", "good", "team: a") +
      "---\n" +
      pod("apps-a", "bad", "app: x") +
      "---\n" +
      pod("apps-b", "good-b", "team: b");
    await eventually("the Pods created", 60_000, async () =>
      (await current().kubectl(["apply", "-f", "-"], pods)).code === 0 ? true : undefined,
    );
  });

  after(async () => {
    if (cluster !== undefined) await stopCluster(cluster.dir);
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  test("the unlabeled Pod fails (exit 1); the labeled ones in every namespace pass", async () => {
    const r = await apply([join(dir, "require-labels.yaml"), "--output-format", "json"]);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(rows(r), [
      "require-labels Pod/apps-a/bad fail",
      "require-labels Pod/apps-a/good pass",
      "require-labels Pod/apps-b/good-b pass",
    ]);
    const text = await apply([join(dir, "require-labels.yaml")]);
    assert.equal(text.code, 1);
    assert.match(
      text.stdout,
      /\npolicy require-labels -> resource apps-a\/Pod\/bad failed:\n1 - .*the label team is required/,
    );
  });

  test("-n narrows the listing to one namespace", async () => {
    const r = await apply([join(dir, "require-labels.yaml"), "-n", "apps-b", "--output-format", "json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(rows(r), ["require-labels Pod/apps-b/good-b pass"]);
    assert.equal((JSON.parse(r.stdout) as Results).results.length, 1);
  });

  test("-r NAME keeps the objects of that name; an unknown name is exit 2; -r FILE adds its manifests", async () => {
    const named = await apply([join(dir, "require-labels.yaml"), "-r", "good-b", "--output-format", "json"]);
    assert.equal(named.code, 0, named.stderr);
    assert.deepEqual(rows(named), ["require-labels Pod/apps-b/good-b pass"]);
    const unknown = await apply([join(dir, "require-labels.yaml"), "-r", "no-such-pod"]);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /-r no-such-pod: not a file or folder, and no object the policies match is named "no-such-pod" in the cluster/,
    );
    writeFileSync(join(dir, "local.yaml"), pod("apps-b", "local-only", "app: y"));
    const both = await apply([
      join(dir, "require-labels.yaml"),
      "-n",
      "apps-b",
      "-r",
      join(dir, "local.yaml"),
      "--output-format",
      "json",
    ]);
    assert.equal(both.code, 1, both.stderr);
    assert.deepEqual(rows(both), [
      "require-labels Pod/apps-b/good-b pass",
      "require-labels Pod/apps-b/local-only fail",
    ]);
  });

  test("a configMap entry reads the live ConfigMap and follows an edit; an apiCall GET counts the live Pods", async () => {
    const before = await apply([join(dir, "live-context.yaml"), "-n", "apps-a", "--output-format", "json"]);
    assert.equal(before.code, 0, before.stderr + before.stdout);
    assert.deepEqual(rows(before), [
      "live-context Pod/apps-a/bad pass",
      "live-context Pod/apps-a/bad skip",
      "live-context Pod/apps-a/good pass",
      "live-context Pod/apps-a/good pass",
    ]);
    await kubectlOk([
      "create",
      "configmap",
      "teams",
      "-n",
      "default",
      "--from-literal=allowed=b,c",
      "--dry-run=client",
      "-o",
      "yaml",
    ]).then((y) => kubectlOk(["apply", "-f", "-"], y));
    await kubectlOk(["run", "third", "-n", "apps-a", "--image=registry.invalid/app:1", "--labels=team=c"]);
    const after = await apply([join(dir, "live-context.yaml"), "-n", "apps-a", "--output-format", "json"]);
    assert.equal(after.code, 1, after.stderr);
    const out = JSON.parse(after.stdout) as Results;
    const failed = out.results
      .filter((x) => x.result === "fail")
      .map((x) => `${x.resource}: ${x.message}`)
      .sort();
    assert.deepEqual(failed, [
      "Pod/apps-a/bad: apps-a has 3 Pods",
      "Pod/apps-a/good: apps-a has 3 Pods",
      "Pod/apps-a/good: team a is not in b,c",
      "Pod/apps-a/third: apps-a has 3 Pods",
    ]);
  });

  test("a user the cluster forbids to list Pods gets exit 2 naming the verb and the resource", async () => {
    await kubectlOk(["create", "serviceaccount", "nobody", "-n", "default"]);
    const token = (await kubectlOk(["create", "token", "nobody", "-n", "default"])).trim();
    const admin = readFileSync(current().kubeconfig, "utf8");
    const server = /server: (\S+)/.exec(admin)?.[1] ?? "";
    const ca = /certificate-authority-data: (\S+)/.exec(admin)?.[1] ?? "";
    const kubeconfig = join(dir, "nobody.kubeconfig");
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\ncurrent-context: n\ncontexts: [{name: n, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: "${server}", certificate-authority-data: ${ca}}}]\nusers: [{name: u, user: {token: "${token}"}}]\n`,
    );
    const r = await apply([join(dir, "require-labels.yaml")], kubeconfig);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /--cluster: cannot list pods in all namespaces \(kubeconfig .*nobody\.kubeconfig, context n\): forbidden \(403\): pods is forbidden: User "system:serviceaccount:default:nobody" cannot list resource "pods"[^\n]*\(the kubeconfig's user needs the list verb on pods\)/,
    );
  });

  test("--registry: imageRegistry entries and CEL image.GetMetadata read the live Pods' images from a registry, beside a live configMap", async () => {
    const registry = await new TestRegistry().start();
    try {
      const rootDigest = registry.add("team/root", "1", { config: { config: { User: "root" } } });
      registry.add("team/safe", "1", { config: { config: { User: "1000" } } });
      registry.add("team/base", "2", { config: { config: { User: "root" } } });
      await kubectlOk(["create", "namespace", "images"]);
      await kubectlOk([
        "create",
        "configmap",
        "base",
        "-n",
        "images",
        `--from-literal=image=${registry.host}/team/base:2`,
      ]);
      const pods = ["root", "safe"]
        .map(
          (name) =>
            `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: images}\nspec: {containers: [{name: c, image: ${registry.host}/team/${name}:1}]}\n`,
        )
        .join("---\n");
      await eventually("the image Pods created", 60_000, async () =>
        (await current().kubectl(["apply", "-f", "-"], pods)).code === 0 ? true : undefined,
      );
      writeFileSync(join(dir, "images.yaml"), IMAGE_POLICIES);
      const env = { DOCKER_CONFIG: mkdtempSync(join(tmpdir(), "bylaw-docker-")) };
      const r = await apply(
        [join(dir, "images.yaml"), "-n", "images", "--registry", "--output-format", "json"],
        current().kubeconfig,
        env,
      );
      assert.equal(r.code, 1, r.stderr);
      const got = (JSON.parse(r.stdout) as Results).results
        .map((x) => `${x.policy} ${x.resource} ${x.result}: ${x.message}`)
        .sort();
      assert.deepEqual(got, [
        `cel-no-root Pod/images/root fail: the image runs as root`,
        `cel-no-root Pod/images/safe pass: success`,
        `image-user Pod/images/root fail: image ${registry.host}/team/root@${rootDigest} runs as root`,
        `image-user Pod/images/safe pass: validation rule 'user' passed.`,
        `namespace-base Pod/images/root fail: base ${registry.host}/team/base:2 runs as root`,
        `namespace-base Pod/images/safe fail: base ${registry.host}/team/base:2 runs as root`,
      ]);
      const without = await apply(
        [join(dir, "images.yaml"), "-n", "images", "--output-format", "json"],
        current().kubeconfig,
        env,
      );
      assert.equal(without.code, 1, without.stderr);
      const errors = (JSON.parse(without.stdout) as Results).results.filter((x) => x.result === "error");
      assert.equal(errors.length, 6, "without --registry every image read is an error, never a pass");
      assert.ok(
        errors.every((x) => /--registry/.test(x.message)),
        JSON.stringify(errors),
      );
    } finally {
      await registry.stop();
    }
  });
});

/** Three readers of image data: an imageRegistry entry on the Pod's image, one on an image a live ConfigMap names, and CEL image.GetMetadata. */
const IMAGE_POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: image-user}
spec:
  validationFailureAction: Enforce
  rules:
    - name: user
      match: {any: [{resources: {kinds: [Pod], namespaces: [images]}}]}
      context:
        - name: imageData
          imageRegistry: {reference: "{{ request.object.spec.containers[0].image }}"}
      validate:
        message: "image {{ imageData.resolvedImage }} runs as root"
        deny: {conditions: {any: [{key: "{{ imageData.configData.config.User }}", operator: Equals, value: root}]}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: namespace-base}
spec:
  validationFailureAction: Enforce
  rules:
    - name: base
      match: {any: [{resources: {kinds: [Pod], namespaces: [images]}}]}
      context:
        - name: settings
          configMap: {name: base, namespace: images}
        - name: base
          imageRegistry: {reference: "{{ settings.data.image }}"}
      validate:
        message: "base {{ base.image }} runs as {{ base.configData.config.User }}"
        deny: {conditions: {any: [{key: "{{ base.configData.config.User }}", operator: Equals, value: root}]}}
---
${CEL_NO_ROOT_POLICY}`;
