/**
 * Issue 22 §1, end to end (`npm run test:cluster`, not part of `npm test`): `scripts/cluster.sh up`
 * gives a real control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)
 * that kubectl can use: the API answers as v1.35, the kwok Node is Ready, a Deployment's 3 Pods are
 * scheduled and Running, the API server itself evaluates ValidatingAdmissionPolicy and
 * MutatingAdmissionPolicy, a second `up` of the same folder is refused, and `down` leaves nothing
 * running. The first run builds the binaries (see docs/adr/0007 for the times).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import {
  clusterScript,
  eventually,
  processRunning,
  run,
  startCluster,
  stopCluster,
  type Cluster,
  kubectlOk as kubectlIn,
  started,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);

const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);

describe("scripts/cluster.sh: a real control plane", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(
    async () => {
      cluster = await startCluster(buildTimeoutMs);
      console.log(
        `# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s (build included if the cache was cold)`,
      );
    },
    { timeout: buildTimeoutMs + 60_000 },
  );

  after(async () => {
    if (cluster === undefined) return;
    const down = await stopCluster(cluster.dir);
    assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
    const left = [...cluster.pids].filter(([, pid]) => processRunning(pid));
    assert.deepEqual(left, [], "every component has exited after down");
    rmSync(cluster.dir, { recursive: true, force: true });
  });

  test("every component was started and recorded", () => {
    assert.deepEqual([...current().pids.keys()].sort(), [
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "kwok",
    ]);
  });

  test("the API server answers as Kubernetes v1.35 with the admin kubeconfig", async () => {
    assert.equal(await kubectlOk(["get", "--raw", "/readyz"]), "ok");
    const version = JSON.parse(await kubectlOk(["version", "-o", "json"])) as {
      serverVersion?: { gitVersion?: string };
    };
    assert.match(version.serverVersion?.gitVersion ?? "", /^v1\.35\.\d+$/);
    assert.equal((await kubectlOk(["auth", "can-i", "*", "*"])).trim(), "yes");
  });

  test("the kwok Node is Ready", async () => {
    const ready = await kubectlOk([
      "get",
      "node",
      "kwok-node-0",
      "-o",
      'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
    ]);
    assert.equal(ready, "True");
  });

  test("a Deployment of 3 replicas becomes available, its Pods scheduled to the kwok Node and Running", async () => {
    await kubectlOk(["create", "deployment", "web", "--image=registry.invalid/web:1", "--replicas=3"]);
    await kubectlOk(["rollout", "status", "deployment/web", "--timeout=120s"]);
    const pods = JSON.parse(await kubectlOk(["get", "pods", "-l", "app=web", "-o", "json"])) as {
      items: { spec: { nodeName?: string }; status: { phase?: string } }[];
    };
    assert.equal(pods.items.length, 3);
    for (const pod of pods.items) {
      assert.equal(pod.spec.nodeName, "kwok-node-0");
      assert.equal(pod.status.phase, "Running");
    }
    assert.equal(await kubectlOk(["get", "deployment", "web", "-o", "jsonpath={.status.availableReplicas}"]), "3");
  });

  test("the API server evaluates a ValidatingAdmissionPolicy: a matching ConfigMap is denied, another is created", async () => {
    await kubectlOk(["apply", "-f", "-"], validatingPolicy);
    const deniedCm = configMap("holds-a-password", "password");
    // The API server compiles a new policy asynchronously; probe with server-side dry runs until it applies.
    const denial = await eventually("the policy to deny", 30_000, async () => {
      const r = await current().kubectl(["create", "--dry-run=server", "-f", "-"], deniedCm);
      return r.code !== 0 ? r.stderr : undefined;
    });
    assert.match(
      denial,
      /ValidatingAdmissionPolicy 'no-password-keys'.*denied request: ConfigMaps may not hold a password key/,
    );
    const real = await current().kubectl(["create", "-f", "-"], deniedCm);
    assert.notEqual(real.code, 0);
    assert.equal(
      (await current().kubectl(["get", "configmap", "holds-a-password"])).code,
      1,
      "the denied ConfigMap does not exist",
    );
    await kubectlOk(["create", "-f", "-"], configMap("plain", "colour"));
  });

  test("the API server serves and applies a MutatingAdmissionPolicy (v1beta1, enabled by up)", async () => {
    await kubectlOk(["apply", "-f", "-"], mutatingPolicy);
    const label = await eventually("the mutating policy to apply", 30_000, async () => {
      const r = await current().kubectl(
        ["create", "--dry-run=server", "-o", "jsonpath={.metadata.labels.stamped}", "-f", "-"],
        configMap("probe", "colour"),
      );
      return r.code === 0 && r.stdout === "by-map" ? r.stdout : undefined;
    });
    assert.equal(label, "by-map");
  });

  test("a second up of the same folder is refused and leaves the running cluster alone", async () => {
    const again = await run(clusterScript, ["up", current().dir], 120_000);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /already has a running cluster/);
    assert.equal(await kubectlOk(["get", "--raw", "/readyz"]), "ok");
    for (const [name, pid] of current().pids) assert.ok(processRunning(pid), `${name} still runs`);
  });
});

function configMap(name: string, key: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default" },
    data: { [key]: "x" },
  });
}

const validatingPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-password-keys
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [configmaps]
  validations:
    - expression: "!has(object.data) || !('password' in object.data)"
      message: ConfigMaps may not hold a password key
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-password-keys
spec:
  policyName: no-password-keys
  validationActions: [Deny]
`;

const mutatingPolicy = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: stamp-configmaps
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [configmaps]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >-
          Object{metadata: Object.metadata{labels: {"stamped": "by-map"}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: stamp-configmaps
spec:
  policyName: stamp-configmaps
`;
