/**
 * The real kube-apiserver as the oracle for ValidatingAdmissionPolicy (`npm run test:cluster`): no
 * Bylaw in the cluster. Policies and bindings (params by name and by selector, matchConditions,
 * messageExpression, matchResources, Deny and Warn, parameterNotFoundAction Deny and Allow) are
 * created with kubectl; each object is sent with `kubectl create --dry-run=server`, and the API
 * server's answer is compared with `bylaw apply` on the same policy documents, object and params:
 * - denied ⟺ Bylaw's result is fail or error under Enforce, and the API server's reason (after
 *   "denied request: ") is how Bylaw's message begins;
 * - allowed with a warning ⟺ Bylaw's result is fail under Audit with the warning's message;
 * - allowed without one ⟺ Bylaw passes, skips, or has no result for the object.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../src/cli/main.js";
import { recordingIo } from "../support/fake-io.js";
import { eventually, kubectlOk as kubectlIn, run, startCluster, stopCluster, started, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
const current = (): Cluster => started(cluster);
const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);

const ns = (name: string) => ({ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": name } } });

/** Each case lives in its own namespace: its binding's matchResources select only that one. */
const policies: Record<string, string> = {
  "params-by-name.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: oracle-max-replicas}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  matchConditions:
  - name: not-exempt
    expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)"
  variables:
  - name: limit
    expression: "int(params.data.maxReplicas)"
  validations:
  - expression: "object.spec.replicas <= variables.limit"
    messageExpression: "'replicas ' + string(object.spec.replicas) + ' exceed the limit of ' + string(variables.limit)"
    reason: Invalid
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: oracle-max-replicas-deny}
spec:
  policyName: oracle-max-replicas
  validationActions: [Deny]
  paramRef: {name: replica-limits, parameterNotFoundAction: Deny}
  matchResources: {namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [oracle-deny, oracle-missing]}]}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: oracle-max-replicas-warn}
spec:
  policyName: oracle-max-replicas
  validationActions: [Warn]
  paramRef: {name: replica-limits, parameterNotFoundAction: Allow}
  matchResources: ${JSON.stringify(ns("oracle-warn"))}
`,
  "params-by-selector.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: oracle-required-labels}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [services]}]
  validations:
  - expression: "has(object.metadata.labels) && params.data.label in object.metadata.labels"
    messageExpression: "'label ' + params.data.label + ' is required'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: oracle-required-labels}
spec:
  policyName: oracle-required-labels
  validationActions: [Deny]
  paramRef: {namespace: oracle-params, selector: {matchLabels: {purpose: required-label}}, parameterNotFoundAction: Deny}
  matchResources: ${JSON.stringify(ns("oracle-select"))}
`,
  "no-params.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: oracle-owner}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [secrets]}]
  validations:
  - expression: "has(object.metadata.annotations) && 'owner' in object.metadata.annotations"
    message: "an owner annotation is required"
  - expression: "object.type != 'kubernetes.io/basic-auth'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: oracle-owner}
spec:
  policyName: oracle-owner
  validationActions: [Deny]
  matchResources: ${JSON.stringify(ns("oracle-plain"))}
`,
};

const params = `apiVersion: v1
kind: ConfigMap
metadata: {name: replica-limits, namespace: oracle-deny}
data: {maxReplicas: "3"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: replica-limits, namespace: oracle-warn}
data: {maxReplicas: "1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: team-label, namespace: oracle-params, labels: {purpose: required-label}}
data: {label: team}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: tier-label, namespace: oracle-params, labels: {purpose: required-label}}
data: {label: tier}
`;

const deployment = (namespace: string, name: string, replicas: number, labels: Record<string, string> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace, labels },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "registry.invalid/app:1" }] } } },
});
const service = (namespace: string, name: string, labels: Record<string, string>) => ({ apiVersion: "v1", kind: "Service", metadata: { name, namespace, labels }, spec: { ports: [{ port: 80 }] } });
const secret = (namespace: string, name: string, annotations: Record<string, string>, type = "Opaque") => ({
  apiVersion: "v1", kind: "Secret", metadata: { name, namespace, annotations }, type, ...(type === "kubernetes.io/basic-auth" ? { stringData: { username: "u", password: "p" } } : {}),
});

/** Objects sent to both; the namespace decides which binding applies. */
const cases: { name: string; object: Record<string, unknown> }[] = [
  { name: "deployment within the limit (Deny binding)", object: deployment("oracle-deny", "small", 2) },
  { name: "deployment over the limit (Deny binding)", object: deployment("oracle-deny", "big", 5) },
  { name: "exempt deployment over the limit: matchConditions not met", object: deployment("oracle-deny", "exempt", 5, { exempt: "yes" }) },
  { name: "deployment over the limit (Warn binding)", object: deployment("oracle-warn", "big", 2) },
  { name: "deployment in a namespace with no params (Deny: configuration error)", object: deployment("oracle-missing", "any", 1) },
  { name: "service with both labels the params require", object: service("oracle-select", "ok", { team: "a", tier: "b" }) },
  { name: "service missing one label a selected param requires", object: service("oracle-select", "half", { team: "a" }) },
  { name: "secret with an owner", object: secret("oracle-plain", "owned", { owner: "me" }) },
  { name: "secret without an owner: the validation's message", object: secret("oracle-plain", "orphan", {}) },
  { name: "basic-auth secret: 'failed expression' message", object: secret("oracle-plain", "basic", { owner: "me" }, "kubernetes.io/basic-auth") },
];

const NAMESPACES = ["oracle-deny", "oracle-warn", "oracle-missing", "oracle-select", "oracle-params", "oracle-plain"];

interface ApiAnswer {
  readonly denied: string | undefined;
  readonly warning: string | undefined;
}

async function apiServer(object: Record<string, unknown>): Promise<ApiAnswer> {
  const r = await run("kubectl", ["--kubeconfig", current().kubeconfig, "create", "--dry-run=server", "-f", "-", "-o", "name"], 30_000, JSON.stringify(object));
  const denied = /denied request: (.*)$/m.exec(r.stderr)?.[1];
  if (r.code !== 0 && denied === undefined) throw new Error(`kubectl create failed without a policy denial: ${r.stderr}`);
  const warning = /^Warning: Validation failed for ValidatingAdmissionPolicy '[^']*' with binding '[^']*': (.*)$/m.exec(r.stderr)?.[1];
  return { denied: r.code === 0 ? undefined : denied, warning };
}

interface BylawRow {
  readonly result: string;
  readonly action: string;
  readonly message: string;
}

async function bylaw(dir: string, object: Record<string, unknown>): Promise<BylawRow[]> {
  const file = join(dir, `object-${String(object["kind"])}.json`);
  writeFileSync(file, JSON.stringify(object));
  const io = recordingIo();
  const code = await main(["apply", ...Object.keys(policies).map((p) => join(dir, p)), "-r", file, "-r", join(dir, "params.yaml"), "-f", join(dir, "values.yaml"), "--output-format", "json"], io);
  assert.ok(code === 0 || code === 1, io.stderr.join("\n"));
  const out = JSON.parse(io.stdout.join("\n")) as { results: (BylawRow & { resource: string })[] };
  const name = String((object["metadata"] as { name: string }).name);
  return out.results.filter((r) => r.resource.endsWith(`/${name}`));
}

describe("ValidatingAdmissionPolicy: bylaw apply agrees with the kube-apiserver", { timeout: 20 * 60_000 }, () => {
  let dir = "";
  before(async () => {
    cluster = await startCluster(buildTimeoutMs);
    dir = mkdtempSync(join(tmpdir(), "bylaw-vap-oracle-"));
    for (const [file, text] of Object.entries(policies)) writeFileSync(join(dir, file), text);
    writeFileSync(join(dir, "params.yaml"), params);
    // Offline, a namespace's labels come from a Values file, as with Kyverno's CLI; the API server sets the name label itself.
    writeFileSync(join(dir, "values.yaml"), JSON.stringify({ apiVersion: "cli.kyverno.io/v1alpha1", kind: "Values", namespaceSelector: NAMESPACES.map((n) => ({ name: n, labels: { "kubernetes.io/metadata.name": n } })) }));
    for (const n of NAMESPACES) await kubectlOk(["create", "namespace", n]);
    await kubectlOk(["apply", "-f", join(dir, "params.yaml")]);
    for (const file of Object.keys(policies)) await kubectlOk(["apply", "-f", join(dir, file)]);
    // The API server takes a moment to start enforcing new policies and bindings.
    await eventually("every binding enforced", 60_000, async () => {
      const a = await apiServer(deployment("oracle-deny", "probe", 9));
      const b = await apiServer(service("oracle-select", "probe", {}));
      const c = await apiServer(secret("oracle-plain", "probe", {}));
      const d = await apiServer(deployment("oracle-warn", "probe", 9));
      return a.denied !== undefined && b.denied !== undefined && c.denied !== undefined && d.warning !== undefined ? true : undefined;
    });
  });
  after(async () => {
    if (cluster !== undefined) await stopCluster(cluster.dir);
  });

  for (const c of cases) {
    test(c.name, async () => {
      const api = await apiServer(c.object);
      const rows = await bylaw(dir, c.object);
      const failing = rows.filter((r) => r.result === "fail" || r.result === "error");
      const detail = `API server: ${JSON.stringify(api)}; bylaw: ${JSON.stringify(rows)}`;
      if (api.denied !== undefined) {
        const enforced = failing.filter((r) => r.action === "Enforce");
        assert.equal(enforced.length, 1, detail);
        assert.ok(enforced[0]?.message.startsWith(api.denied), detail);
      } else if (api.warning !== undefined) {
        assert.deepEqual(failing.map((r) => [r.result, r.action, r.message]), [["fail", "Audit", api.warning]], detail);
      } else {
        assert.deepEqual(failing, [], detail);
      }
    });
  }
});
