/**
 * Issue 34, `bylaw apply --cluster` types a MutatingPolicy's ApplyConfiguration with the cluster's
 * own OpenAPI v3 (/openapi/v3), as Kyverno's CLI with --cluster does, against the real API server
 * of `scripts/cluster.sh up` (no Bylaw in the cluster):
 * - setting a Pod's tolerations (an atomic list) is the policy's error;
 * - setting a field a CRD's schema does not declare is an error typed from that CRD's schema;
 * - a kind the cluster does not serve (networking.k8s.io/v1beta1 ServiceCIDR: beta, off in 1.35) is
 *   typed with Kubernetes 1.32's built-in kinds, as Kyverno's CLI composes them after the cluster's.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  crdsEstablished,
  eventually,
  kubectlOk as kubectlIn,
  run,
  started,
  startCluster,
  tearDown,
  type Cluster,
  type RunResult,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
let cluster: Cluster | undefined;
let dir = "";

const current = (): Cluster => started(cluster);
const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);
/** The kubeconfig comes from KUBECONFIG: Kyverno's apply refuses --kubeconfig beside --crd-paths. */
const apply = (policy: string, args: readonly string[]): Promise<RunResult> =>
  run(
    process.execPath,
    [join(repoRoot, "bin", "bylaw.js"), "apply", join(dir, policy), ...args, "--cluster", "--output-format", "json"],
    120_000,
    undefined,
    { ...process.env, KUBECONFIG: current().kubeconfig },
  );

const policy = (
  name: string,
  group: string,
  resource: string,
  expression: string,
) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["${group}"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: [${resource}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "${expression}"
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.openapi.bylaw.test}
spec:
  group: openapi.bylaw.test
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`;

/** `resource result message` of the test's own objects. */
function rows(r: RunResult): string[] {
  assert.notEqual(r.stdout, "", r.stderr);
  const out = JSON.parse(r.stdout) as { results: { resource: string; result: string; message?: string }[] };
  return out.results
    .filter((x) => x.resource.includes("openapi-ns"))
    .map((x) => `${x.resource} ${x.result} ${x.message ?? ""}`)
    .sort();
}

describe(
  "bylaw apply --cluster: an ApplyConfiguration typed with the cluster's OpenAPI v3",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs);
      console.log(`# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s`);
      dir = mkdtempSync(join(tmpdir(), "bylaw-apply-openapi-"));
      writeFileSync(
        join(dir, "tolerations.yaml"),
        policy(
          "tolerate",
          "",
          "pods",
          "Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: 'x', operator: 'Exists'}]}}",
        ),
      );
      writeFileSync(
        join(dir, "colour.yaml"),
        policy("colour", "openapi.bylaw.test", "widgets", "Object{spec: Object.spec{colour: 'red'}}"),
      );
      writeFileSync(join(dir, "crd.yaml"), CRD);
      const cidrs = (expression: string) =>
        policy("cidr", "networking.k8s.io", "servicecidrs", expression).replace(
          'apiVersions: ["v1"]',
          'apiVersions: ["v1beta1"]',
        );
      writeFileSync(join(dir, "cidr-declared.yaml"), cidrs("Object{metadata: Object.metadata{labels: {'a': 'b'}}}"));
      writeFileSync(join(dir, "cidr-undeclared.yaml"), cidrs("Object{spec: Object.spec{foo: 'x'}}"));
      writeFileSync(
        join(dir, "servicecidr.yaml"),
        `apiVersion: networking.k8s.io/v1beta1
kind: ServiceCIDR
metadata: {name: openapi-ns-cidr}
spec: {cidrs: ["10.96.100.0/24"]}
`,
      );
      await kubectlOk(["apply", "-f", "-"], CRD);
      await crdsEstablished(current(), ["crd/widgets.openapi.bylaw.test"]);
      await kubectlOk(["create", "namespace", "openapi-ns"]);
      await eventually("the Pod and Widget created", 60_000, async () =>
        (
          await current().kubectl(
            ["apply", "-f", "-"],
            `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: openapi-ns}
spec: {containers: [{name: c, image: registry.invalid/app:1}]}
---
apiVersion: openapi.bylaw.test/v1
kind: Widget
metadata: {name: w, namespace: openapi-ns}
spec: {size: 1}
`,
          )
        ).code === 0
          ? true
          : undefined,
      );
    });

    after(async () => {
      await tearDown(cluster);
      if (dir !== "") rmSync(dir, { recursive: true, force: true });
    });

    test("a Pod's tolerations (atomic in the cluster's schema) may not be set", async () => {
      const r = await apply("tolerations.yaml", ["-n", "openapi-ns"]);
      const got = rows(r);
      assert.equal(got.length, 1, r.stdout + r.stderr);
      assert.match(got[0] ?? "", /error .*may not mutate atomic arrays, maps or structs: \.spec\.tolerations/);
    });

    test("a kind the cluster does not serve is typed with the 1.32 built-in kinds", async () => {
      const declared = await apply("cidr-declared.yaml", ["-r", join(dir, "servicecidr.yaml")]);
      assert.deepEqual(rows(declared), ["ServiceCIDR/openapi-ns-cidr pass success"], declared.stderr);
      const undeclared = await apply("cidr-undeclared.yaml", ["-r", join(dir, "servicecidr.yaml")]);
      const got = rows(undeclared);
      assert.equal(got.length, 1, undeclared.stdout + undeclared.stderr);
      assert.match(
        got[0] ?? "",
        /error .*failed to convert patch object to typed object: \.spec\.foo: field not declared in schema/,
      );
    });

    test("a CRD kind's undeclared field is an error typed from the CRD's own schema", async () => {
      // --crd-paths only maps Widget to its resource for matchConstraints (apply --cluster does not
      // read that from discovery yet); the type still comes from the cluster's /openapi/v3.
      const r = await apply("colour.yaml", ["-n", "openapi-ns", "--crd-paths", join(dir, "crd.yaml")]);
      const got = rows(r);
      assert.equal(got.length, 1, r.stdout + r.stderr);
      assert.match(
        got[0] ?? "",
        /error .*failed to convert patch object to typed object: \.spec\.colour: field not declared in schema/,
      );
    });
  },
);
