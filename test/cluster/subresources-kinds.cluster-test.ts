/**
 * Subresource requests reach every rule type and policy kind written for them (issue 33 §1), end to
 * end with kubectl against a real API server with Bylaw registered:
 * - a mutate rule on `Deployment/scale` changes what `kubectl scale` asks for (the patch applies to
 *   the Scale object the API server sent);
 * - a ValidatingPolicy on `deployments/scale` denies `kubectl scale`, one on
 *   `pods/ephemeralcontainers` denies `kubectl debug`: matched by the request's resource, as the API
 *   server and Kyverno match them, though no ClusterPolicy names Deployment or Pod;
 * - a ClusterPolicy rule on the wildcard `*∕scale` denies scaling a StatefulSet, and sees the Scale
 *   as the API server sent it (apiVersion autoscaling/v1, kind Scale), as Kyverno gives it;
 * - an ImageValidatingPolicy on `statefulsets/scale` is evaluated on the Scale kubectl scale sends:
 *   its validation denies 5 replicas with its message and admits 2.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const MUTATE_SCALE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: cap-scale
spec:
  background: false
  rules:
    - name: cap-scale
      match:
        any:
          - resources:
              kinds: [Deployment/scale]
              names: [m]
              namespaces: [subk]
      mutate:
        patchStrategicMerge:
          spec:
            replicas: 2
`;

const WILDCARD_SCALE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: any-scale
spec:
  background: false
  validationFailureAction: Enforce
  rules:
    - name: any-scale
      match:
        any:
          - resources:
              kinds: ["*/scale"]
              names: [s]
              namespaces: [subk]
      validate:
        message: "at most 4 replicas through any scale subresource"
        pattern:
          apiVersion: autoscaling/v1
          kind: Scale
          spec:
            replicas: "<=4"
`;

const vpol = (name: string, resource: string, names: string, expression: string, message: string): string =>
  `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: ${name}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
      - apiGroups: ["${resource.startsWith("deployments") ? "apps" : resource.startsWith("widgets") ? "example.com" : ""}"]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [${resource}]
        resourceNames: [${names}]
    namespaceSelector:
      matchLabels: {kubernetes.io/metadata.name: subk}
  validations:
    - expression: "${expression}"
      message: "${message}"
`;

const IVPOL = `apiVersion: policies.kyverno.io/v1
kind: ImageValidatingPolicy
metadata:
  name: ivpol-scale
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [UPDATE]
        resources: [statefulsets/scale]
        resourceNames: [mp]
  attestors:
    - name: none
      cosign:
        key:
          data: unused
  validations:
    - expression: "object.spec.replicas <= 3"
      message: "at most 3 replicas"
`;

// No signature can verify here (a made-up key whose Rekor log Bylaw does not check: a rule error under
// failurePolicy Fail): the image kubectl debug adds is checked and stops the request; the Pod's own
// nginx is not among the imageReferences.
const VERIFY_DEBUG = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: verify-debug-images
spec:
  background: false
  rules:
    - name: signed-busybox
      match:
        any:
          - resources:
              kinds: [Pod]
              names: [q]
              namespaces: [subk]
      verifyImages:
        - imageReferences: ["*busybox*"]
          mutateDigest: false
          attestors:
            - entries:
                - keys:
                    publicKeys: |-
                      -----BEGIN PUBLIC KEY-----
                      MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8nXRh950IZbRj8Ra/N9sbqOPZrfM
                      5/KAQN0/KjHcorm/J5yctVd7iEcnessRQjU917hmKO6JWVGHpDguIyakZA==
                      -----END PUBLIC KEY-----
`;

const statefulSet = (name: string): string => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}, namespace: subk}
spec:
  serviceName: ${name}
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: c, image: "nginx:1.27"}]}
`;

/** A custom resource with a scale subresource (no controller needed: the API server serves it). */
const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {replicas: {type: integer}, size: {type: integer}}}
            status: {type: object, properties: {replicas: {type: integer}}}
`;

const WIDGET_POLICIES = [
  vpol("vpol-widget-scale", "widgets/scale", "w", "object.spec.replicas <= 3", "vpol: at most 3 widget replicas"),
].join("---\n");

const POLICIES = [
  MUTATE_SCALE,
  WILDCARD_SCALE,
  vpol("vpol-scale", "deployments/scale", "v", "object.spec.replicas <= 3", "vpol: at most 3 replicas"),
  vpol("vpol-debug", "pods/ephemeralcontainers", "p", "false", "vpol: no ephemeral containers"),
  VERIFY_DEBUG,
].join("---\n");

const replicas = async (kind: string, name: string): Promise<string> =>
  (await ok(["-n", "subk", "get", kind, name, "-o", "jsonpath={.spec.replicas}"])).trim();

describe(
  "subresource requests reach every rule type and policy kind",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      await ok(["create", "namespace", "subk"]);
      await ok(["-n", "subk", "run", "p", "--image=nginx:1.27"]);
      await ok(["-n", "subk", "run", "q", "--image=nginx:1.27"]);
      await ok(["-n", "subk", "create", "deployment", "m", "--image=nginx:1.27"]);
      await ok(["-n", "subk", "create", "deployment", "v", "--image=nginx:1.27"]);
      await ok(["apply", "-f", "-"], statefulSet("s") + "---\n" + statefulSet("mp"));
      await ok(["apply", "-f", "-"], POLICIES);
      await ok(["apply", "-f", "-"], WIDGET_CRD);
      await ok(["wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=60s"]);
      await ok(["apply", "-f", "-"], WIDGET_POLICIES);
      await ok(
        ["apply", "-f", "-"],
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: subk}\nspec: {replicas: 1, size: 1}\n",
      );
      // Policies are served once the probe deployment's scale is mutated (the mutating webhook is registered).
      await eventually("the policies served", 120_000, async () => {
        await ok(["-n", "subk", "scale", "deployment", "m", "--replicas=3"]);
        return (await replicas("deployment", "m")) === "2" ? true : undefined;
      });
    });

    after(async () => {
      await tearDown(cluster);
    });

    test("a mutate rule on Deployment/scale changes what kubectl scale asks for", async () => {
      await ok(["-n", "subk", "scale", "deployment", "m", "--replicas=5"]);
      assert.equal(await replicas("deployment", "m"), "2");
    });

    test("a ValidatingPolicy on deployments/scale denies kubectl scale, with its message", async () => {
      const r = await current().kubectl(["-n", "subk", "scale", "deployment", "v", "--replicas=5"]);
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, /Policy vpol-scale failed: vpol: at most 3 replicas/);
      assert.equal(await replicas("deployment", "v"), "1");
      await ok(["-n", "subk", "scale", "deployment", "v", "--replicas=3"]);
    });

    test("a ValidatingPolicy on pods/ephemeralcontainers denies kubectl debug", async () => {
      const r = await current().kubectl([
        "-n",
        "subk",
        "debug",
        "p",
        "--image=busybox:1.36",
        "--container=dbg",
        "--profile=general",
        "--",
        "sleep",
        "1",
      ]);
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, /Policy vpol-debug failed: vpol: no ephemeral containers/);
      const added = await ok(["-n", "subk", "get", "pod", "p", "-o", "jsonpath={.spec.ephemeralContainers}"]);
      assert.equal(added.trim(), "");
    });

    test("verifyImages on Pod sees the image of the ephemeral container kubectl debug adds", async () => {
      const r = await current().kubectl([
        "-n",
        "subk",
        "debug",
        "q",
        "--image=busybox:1.36",
        "--container=dbg",
        "--profile=general",
        "--",
        "sleep",
        "1",
      ]);
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, /verify-debug-images/);
      assert.match(r.stderr, /busybox/);
      const added = await ok(["-n", "subk", "get", "pod", "q", "-o", "jsonpath={.spec.ephemeralContainers}"]);
      assert.equal(added.trim(), "");
    });

    test("a ClusterPolicy rule on */scale denies scaling a StatefulSet past its bound", async () => {
      const r = await current().kubectl(["-n", "subk", "scale", "statefulset", "s", "--replicas=6"]);
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, /at most 4 replicas through any scale subresource/);
      await ok(["-n", "subk", "scale", "statefulset", "s", "--replicas=4"]);
      assert.equal(await replicas("statefulset", "s"), "4");
    });

    test("a ValidatingPolicy on a custom resource's scale subresource (widgets/scale) denies kubectl scale past its bound, and admits one within it", async () => {
      const r = await eventually("the widget policy in force", 60_000, async () => {
        const res = await current().kubectl(["-n", "subk", "scale", "widget", "w", "--replicas=5"]);
        return res.code !== 0 ? res : undefined;
      });
      assert.match(r.stderr, /Policy vpol-widget-scale failed: vpol: at most 3 widget replicas/);
      assert.doesNotMatch(r.stderr, /not a built-in kind/);
      await ok(["-n", "subk", "scale", "widget", "w", "--replicas=2"]);
      assert.equal(await replicas("widget", "w"), "2");
    });

    test("an ImageValidatingPolicy on statefulsets/scale is evaluated on kubectl scale's Scale: its validation decides", async () => {
      await ok(["apply", "-f", "-"], IVPOL);
      const denied = await eventually("the ImageValidatingPolicy served", 60_000, async () => {
        const r = await current().kubectl(["-n", "subk", "scale", "statefulset", "mp", "--replicas=5"]);
        return r.code !== 0 ? r.stderr : undefined;
      });
      assert.match(denied, /Policy ivpol-scale failed: at most 3 replicas/);
      await ok(["-n", "subk", "scale", "statefulset", "mp", "--replicas=2"]);
      assert.equal(await replicas("statefulset", "mp"), "2");
      await ok(["delete", "imagevalidatingpolicy", "ivpol-scale"]);
    });
  },
);
