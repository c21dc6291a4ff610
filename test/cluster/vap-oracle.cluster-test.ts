/**
 * The real kube-apiserver as the oracle for ValidatingAdmissionPolicy (`npm run test:cluster`): no
 * Bylaw in the cluster. Policies and bindings (params by name and by selector, matchConditions,
 * messageExpression, matchResources, Deny and Warn, parameterNotFoundAction Deny and Allow) are
 * created with kubectl; each object is sent with `kubectl create --dry-run=server`, and the API
 * server's answer is compared with `bylaw test` (the object as the test's resource, the params as
 * its paramResources, as Kyverno's test hands them over) and, where a binding's validationActions
 * matter, `bylaw apply`.
 *
 * Bylaw offline follows Kyverno 1.19's CLI, which differs from the API server in places
 * (docs/vap-cli-vs-api-server.md). `agreeing` are the cases where both answer alike:
 * - denied ⟺ Bylaw's result is fail or error, and the API server's reason (after "denied
 *   request: ") is how Bylaw's message begins;
 * - allowed without a warning ⟺ Bylaw passes, skips, or has no result for the object.
 * `differences` assert each documented difference: what the API server answers and what Bylaw
 * (as Kyverno's CLI) answers instead.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { main } from "../../src/cli/main.js";
import { recordingIo } from "../support/fake-io.js";
import {
  eventually,
  kubectlOk as kubectlIn,
  run,
  startCluster,
  stopCluster,
  started,
  type Cluster,
} from "./cluster-harness.js";

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
  // A cluster-scoped resource (a Namespace) with a namespaced paramKind: paramRef.namespace, or none.
  "cluster-scoped-params.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: oracle-namespace-label}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}]
  validations:
  - expression: "has(object.metadata.labels) && params.data.label in object.metadata.labels"
    messageExpression: "'label ' + params.data.label + ' is required'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: oracle-namespace-label-pinned}
spec:
  policyName: oracle-namespace-label
  validationActions: [Deny]
  paramRef: {name: namespace-label, namespace: oracle-params, parameterNotFoundAction: Deny}
  matchResources: {objectSelector: {matchLabels: {oracle: pinned}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: oracle-namespace-label-unpinned}
spec:
  policyName: oracle-namespace-label
  validationActions: [Deny]
  paramRef: {name: namespace-label, parameterNotFoundAction: Deny}
  matchResources: {objectSelector: {matchLabels: {oracle: unpinned}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: oracle-namespace-label-unpinned-allow}
spec:
  policyName: oracle-namespace-label
  validationActions: [Deny]
  paramRef: {name: namespace-label, parameterNotFoundAction: Allow}
  matchResources: {objectSelector: {matchLabels: {oracle: unpinned-allow}}}
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
  matchResources: {namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [oracle-plain, oracle-two]}]}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: oracle-owner-warn}
spec:
  policyName: oracle-owner
  validationActions: [Warn]
  matchResources: ${JSON.stringify(ns("oracle-two"))}
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
---
apiVersion: v1
kind: ConfigMap
metadata: {name: namespace-label, namespace: oracle-params}
data: {label: owner}
`;

const namespace = (name: string, labels: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, labels },
});

const deployment = (namespace: string, name: string, replicas: number, labels: Record<string, string> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace, labels },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "c", image: "registry.invalid/app:1" }] },
    },
  },
});
const service = (namespace: string, name: string, labels: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace, labels },
  spec: { ports: [{ port: 80 }] },
});
const secret = (namespace: string, name: string, annotations: Record<string, string>, type = "Opaque") => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace, annotations },
  type,
  ...(type === "kubernetes.io/basic-auth" ? { stringData: { username: "u", password: "p" } } : {}),
});

/** Objects sent to both where the API server and Kyverno's CLI agree; the namespace decides which binding applies. */
const agreeing: { name: string; policy: string; object: Record<string, unknown> }[] = [
  {
    name: "deployment within the limit (Deny binding)",
    policy: "oracle-max-replicas",
    object: deployment("oracle-deny", "small", 2),
  },
  {
    name: "deployment over the limit (Deny binding)",
    policy: "oracle-max-replicas",
    object: deployment("oracle-deny", "big", 5),
  },
  {
    name: "exempt deployment over the limit: matchConditions not met",
    policy: "oracle-max-replicas",
    object: deployment("oracle-deny", "exempt", 5, { exempt: "yes" }),
  },
  { name: "secret with an owner", policy: "oracle-owner", object: secret("oracle-plain", "owned", { owner: "me" }) },
  {
    name: "secret without an owner: the validation's message",
    policy: "oracle-owner",
    object: secret("oracle-plain", "orphan", {}),
  },
  {
    name: "basic-auth secret: 'failed expression' message",
    policy: "oracle-owner",
    object: secret("oracle-plain", "basic", { owner: "me" }, "kubernetes.io/basic-auth"),
  },
];

const NAMESPACES = [
  "oracle-deny",
  "oracle-warn",
  "oracle-missing",
  "oracle-select",
  "oracle-params",
  "oracle-plain",
  "oracle-two",
];

interface ApiAnswer {
  readonly denied: string | undefined;
  readonly warning: string | undefined;
}

async function apiServer(object: Record<string, unknown>): Promise<ApiAnswer> {
  const r = await run(
    "kubectl",
    ["--kubeconfig", current().kubeconfig, "create", "--dry-run=server", "-f", "-", "-o", "name"],
    30_000,
    JSON.stringify(object),
  );
  const denied = /denied request: (.*)$/m.exec(r.stderr)?.[1];
  if (r.code !== 0 && denied === undefined)
    throw new Error(`kubectl create failed without a policy denial: ${r.stderr}`);
  const warning = /^Warning: Validation failed for ValidatingAdmissionPolicy '[^']*' with binding '[^']*': (.*)$/m.exec(
    r.stderr,
  )?.[1];
  return { denied: r.code === 0 ? undefined : denied, warning };
}

interface BylawRow {
  readonly result: string;
  readonly action: string;
  readonly message: string;
}

function writeObject(dir: string, object: Record<string, unknown>): { file: string; name: string } {
  const name = String((object["metadata"] as { name: string }).name);
  const file = join(dir, `object-${String(object["kind"])}-${name}.json`);
  writeFileSync(file, JSON.stringify(object));
  return { file, name };
}

/** `bylaw apply` on every policy document and the object: its rows for the object. */
async function bylawApply(dir: string, object: Record<string, unknown>): Promise<BylawRow[]> {
  const { file, name } = writeObject(dir, object);
  const io = recordingIo();
  const code = await main(
    [
      "apply",
      ...Object.keys(policies).map((p) => join(dir, p)),
      "-r",
      file,
      "-f",
      join(dir, "values.yaml"),
      "--output-format",
      "json",
    ],
    io,
  );
  assert.ok(code === 0 || code === 1, io.stderr.join("\n"));
  const out = JSON.parse(io.stdout.join("\n")) as { results: (BylawRow & { resource: string })[] };
  return out.results.filter((r) => r.resource.endsWith(`/${name}`));
}

/** `bylaw test` with the object as the resource and the params as paramResources: what it reports for the policy. */
async function bylawTest(
  dir: string,
  policy: string,
  object: Record<string, unknown>,
  options: { readonly clusterResources?: boolean } = {},
): Promise<{ readonly actual: string | null; readonly message: string }> {
  const { file, name } = writeObject(dir, object);
  const suite = mkdtempSync(join(dir, "suite-"));
  writeFileSync(
    join(suite, "kyverno-test.yaml"),
    JSON.stringify({
      apiVersion: "cli.kyverno.io/v1alpha1",
      kind: "Test",
      metadata: { name: "oracle" },
      // Paths are relative to the test file, as Kyverno reads them.
      policies: Object.keys(policies).map((p) => `../${p}`),
      resources: [`../${basename(file)}`],
      paramResources: ["../params.yaml"],
      // With clusterResources Kyverno's test takes its cluster path (processVAPWithClient; docs/vap-cli-vs-api-server.md).
      ...(options.clusterResources === true ? { clusterResources: ["../params.yaml"] } : {}),
      variables: "../values.yaml",
      results: [{ policy, resources: [name], result: "pass", isValidatingAdmissionPolicy: true }],
    }),
  );
  const io = recordingIo();
  await main(["test", suite, "-o", "bylaw-json"], io);
  const parsed = JSON.parse(io.stdout.join("\n")) as {
    suites?: { results: { actual: string | null; message: string }[] }[];
  };
  const row = parsed.suites?.[0]?.results[0];
  assert.ok(row !== undefined, io.stdout.join("\n"));
  return { actual: row.actual, message: row.message };
}

describe("ValidatingAdmissionPolicy: bylaw test and apply against the kube-apiserver", { timeout: 20 * 60_000 }, () => {
  let dir = "";
  before(async () => {
    cluster = await startCluster(buildTimeoutMs);
    dir = mkdtempSync(join(tmpdir(), "bylaw-vap-oracle-"));
    for (const [file, text] of Object.entries(policies)) writeFileSync(join(dir, file), text);
    writeFileSync(join(dir, "params.yaml"), params);
    // Offline, a namespace's labels come from a Values file, as with Kyverno's CLI; the API server sets the name label itself.
    writeFileSync(
      join(dir, "values.yaml"),
      JSON.stringify({
        apiVersion: "cli.kyverno.io/v1alpha1",
        kind: "Values",
        namespaceSelector: NAMESPACES.map((n) => ({ name: n, labels: { "kubernetes.io/metadata.name": n } })),
      }),
    );
    for (const n of NAMESPACES) await kubectlOk(["create", "namespace", n]);
    await kubectlOk(["apply", "-f", join(dir, "params.yaml")]);
    for (const file of Object.keys(policies)) await kubectlOk(["apply", "-f", join(dir, file)]);
    // The API server takes a moment to start enforcing new policies and bindings.
    await eventually("every binding enforced", 60_000, async () => {
      const a = await apiServer(deployment("oracle-deny", "probe", 9));
      const b = await apiServer(service("oracle-select", "probe", {}));
      const c = await apiServer(secret("oracle-plain", "probe", {}));
      const d = await apiServer(deployment("oracle-warn", "probe", 9));
      const e = await apiServer(namespace("oracle-probe", { oracle: "pinned" }));
      return a.denied !== undefined &&
        b.denied !== undefined &&
        c.denied !== undefined &&
        d.warning !== undefined &&
        e.denied !== undefined
        ? true
        : undefined;
    });
  });
  after(async () => {
    if (cluster !== undefined) await stopCluster(cluster.dir);
  });

  for (const c of agreeing) {
    test(`agree: ${c.name}`, async () => {
      const api = await apiServer(c.object);
      const got = await bylawTest(dir, c.policy, c.object);
      const detail = `API server: ${JSON.stringify(api)}; bylaw test: ${JSON.stringify(got)}`;
      assert.equal(api.warning, undefined, detail);
      if (api.denied !== undefined) {
        assert.ok(got.actual === "fail" || got.actual === "error", detail);
        assert.ok(got.message.startsWith(api.denied), detail);
      } else {
        assert.ok(got.actual === "pass" || got.actual === "skip" || got.actual === null, detail);
      }
    });
  }

  describe("a cluster-scoped resource with a namespaced paramKind, with clusterResources (Kyverno's CLI crashes there; Bylaw answers as the API server)", () => {
    test("paramRef.namespace set: params from that namespace, as the API server reads them", async () => {
      for (const [labels, want] of [
        [{ oracle: "pinned", owner: "me" }, undefined],
        [{ oracle: "pinned" }, "label owner is required"],
      ] as const) {
        const ns = namespace("oracle-new", labels);
        const api = await apiServer(ns);
        assert.equal(api.denied, want);
        const got = await bylawTest(dir, "oracle-namespace-label", ns, { clusterResources: true });
        assert.deepEqual(got, want === undefined ? { actual: "pass", message: "" } : { actual: "fail", message: want });
      }
    });

    test("no paramRef.namespace: the API server finds no params, so parameterNotFoundAction decides (Deny denies, Allow skips the binding)", async () => {
      const denied = namespace("oracle-new", { oracle: "unpinned", owner: "me" });
      const api = await apiServer(denied);
      assert.equal(
        api.denied,
        "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
      );
      const got = await bylawTest(dir, "oracle-namespace-label", denied, { clusterResources: true });
      assert.deepEqual(got, {
        actual: "error",
        message:
          "binding oracle-namespace-label-unpinned: no params found for policy binding with `Deny` parameterNotFoundAction (a cluster-scoped resource, and a namespaced paramKind without paramRef.namespace)",
      });
      const allowed = namespace("oracle-new", { oracle: "unpinned-allow" });
      assert.deepEqual(await apiServer(allowed), { denied: undefined, warning: undefined });
      const skipped = await bylawTest(dir, "oracle-namespace-label", allowed, { clusterResources: true });
      assert.equal(skipped.actual, null, JSON.stringify(skipped));
    });
  });

  describe("documented differences (docs/vap-cli-vs-api-server.md)", () => {
    test("1. with a binding, the policy's matchConstraints: the API server applies them, Kyverno's CLI does not", async () => {
      const cm = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "unannotated", namespace: "oracle-plain" },
        data: { a: "b" },
      };
      const api = await apiServer(cm);
      assert.deepEqual(api, { denied: undefined, warning: undefined });
      const got = await bylawTest(dir, "oracle-owner", cm);
      assert.deepEqual(got, { actual: "fail", message: "an owner annotation is required" });
    });

    test("2. params by name: the API server reads the request's namespace, Kyverno's CLI takes the first object of that name", async () => {
      const d = deployment("oracle-warn", "two", 2);
      const api = await apiServer(d);
      assert.equal(api.warning, "replicas 2 exceed the limit of 1");
      const got = await bylawTest(dir, "oracle-max-replicas", d);
      assert.equal(got.actual, "pass", JSON.stringify(got));
    });

    test("3. a selector: the API server evaluates each object, Kyverno's CLI hands them over as one list", async () => {
      const svc = service("oracle-select", "half", { team: "a" });
      const api = await apiServer(svc);
      assert.equal(api.denied, "label tier is required");
      const got = await bylawTest(dir, "oracle-required-labels", svc);
      assert.equal(got.actual, "error", JSON.stringify(got));
      assert.match(got.message, /^expression '.*params\.data\.label.*' resulted in error: /);
    });

    test("4. parameterNotFoundAction: the API server honours Deny, Kyverno's CLI never reads it", async () => {
      const d = deployment("oracle-missing", "any", 1);
      const api = await apiServer(d);
      assert.match(api.denied ?? "", /no params found for policy binding with `Deny` parameterNotFoundAction/);
      const got = await bylawTest(dir, "oracle-max-replicas", d);
      assert.equal(got.actual, "pass", JSON.stringify(got));
    });

    test("5. two bindings: the API server applies each (Deny wins), Kyverno's CLI reports only the last (here Warn)", async () => {
      const s2 = secret("oracle-two", "orphan", {});
      const api = await apiServer(s2);
      assert.equal(api.denied, "an owner annotation is required");
      const rows = await bylawApply(dir, s2);
      assert.deepEqual(
        rows.map((r) => [r.result, r.action, r.message]),
        [["fail", "Audit", "an owner annotation is required"]],
      );
    });
  });
});
