/**
 * GeneratingPolicy in a cluster (issue 34 §3), end to end against the real control plane with
 * Bylaw and kubectl, the background component in its own process as deploy/ runs it:
 * - the policy is admitted at `kubectl apply`, and is not Ready while no background component runs
 *   (its condition names what would run it);
 * - with the background component: Ready, and a new Namespace gets the NetworkPolicy the policy's
 *   generator.Apply asks for, with Kyverno's generate.kyverno.io labels (the done-when); the
 *   UpdateRequest (`cel-generate`) is deleted once done;
 * - one whose expression does not compile is refused at `kubectl apply`, naming the policy and field;
 * - synchronize: deleting a trigger deletes what was generated for it; deleting the policy deletes
 *   its downstream, unless orphanDownstreamOnPolicyDelete; a copy edited or deleted by someone else
 *   is put back; a change to the object the policy reads with resource.Get reaches every copy;
 * - generateExisting: a Namespace that exists when the policy arrives gets its ConfigMap;
 * - tenants: a NamespacedGeneratingPolicy generates in its own namespace; one asking for another
 *   namespace, or for a cluster-scoped object, fails its UpdateRequest with the reason and nothing
 *   is written;
 * - with exceptions on (--enable-policy-exception --exception-namespace default), a policies.kyverno.io PolicyException naming the
 *   policy exempts a trigger: nothing is generated for it.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  eventually,
  kubectlOk,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";
import { startComponent } from "./component-process.js";
import type { ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
const running: ServeProcess[] = [];

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

/** What Kyverno's docs tell users to add so the background controller may write NetworkPolicies. */
const NETPOL_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:networkpolicies:manage
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [networking.k8s.io]
    resources: [networkpolicies]
    verbs: [get, list, watch, create, update, patch, delete]
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [get, list, watch, create, update, patch, delete]
`;

/** A GeneratingPolicy `name` over `resources` CREATE (objects labelled as `selector` says), generating what `expression` asks. */
const celGenerating = (o: {
  name: string;
  resources: string;
  selector: Record<string, string>;
  evaluation: Record<string, unknown>;
  expression: string;
}): string =>
  JSON.stringify({
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: o.name },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: [o.resources] }],
        objectSelector: { matchLabels: o.selector },
      },
      evaluation: o.evaluation,
      generate: [{ expression: o.expression }],
    },
  });

const configMapOf = (name: string, data: string): string =>
  `[{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"), "metadata": dyn({"name": ${name}}), "data": dyn({"from": ${data}})}]`;

/** derive: a ConfigMap labelled derive=yes gets NAME-derived beside it, kept in sync (deleted with its trigger and with the policy). */
const DERIVE = celGenerating({
  name: "derive",
  resources: "configmaps",
  selector: { derive: "yes" },
  evaluation: { synchronize: { enabled: true } },
  expression: `generator.Apply(object.metadata.namespace, ${configMapOf('object.metadata.name + "-derived"', "object.metadata.name")})`,
});

/** clone: a ConfigMap labelled clone=yes gets NAME-cloned beside it, with the data of ops/source (read with resource.Get), kept in sync. */
const CLONE = celGenerating({
  name: "clone",
  resources: "configmaps",
  selector: { clone: "yes" },
  evaluation: { synchronize: { enabled: true } },
  expression: `generator.Apply(object.metadata.namespace, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"), "metadata": dyn({"name": object.metadata.name + "-cloned"}), "data": dyn(resource.Get("v1", "configmaps", "ops", "source").data)}])`,
});

/** team-config: each Namespace labelled team gets team-NAME in ops, the existing ones too; orphaned when the policy goes. */
const TEAM_CONFIG = celGenerating({
  name: "team-config",
  resources: "namespaces",
  selector: { team: "alpha" },
  evaluation: {
    generateExisting: { enabled: true },
    synchronize: { enabled: true },
    orphanDownstreamOnPolicyDelete: { enabled: true },
  },
  expression: `generator.Apply("ops", ${configMapOf('"team-" + object.metadata.name', "object.metadata.name")})`,
});

/** isolate: a Namespace labelled isolate=yes (created or updated so) gets ConfigMap isolated, kept in sync. */
const ISOLATE = JSON.stringify({
  apiVersion: "policies.kyverno.io/v1",
  kind: "GeneratingPolicy",
  metadata: { name: "isolate" },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["namespaces"] },
      ],
    },
    matchConditions: [{ name: "labelled", expression: "object.metadata.?labels.isolate.orValue('') == 'yes'" }],
    evaluation: { synchronize: { enabled: true } },
    generate: [
      { expression: `generator.Apply(object.metadata.name, ${configMapOf('"isolated"', "object.metadata.name")})` },
    ],
  },
});

/** templated: a Namespace labelled templated=yes gets ConfigMap from-template, written as a YAML template with placeholders. */
const TEMPLATED = JSON.stringify({
  apiVersion: "policies.kyverno.io/v1",
  kind: "GeneratingPolicy",
  metadata: { name: "templated" },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["namespaces"] },
      ],
      objectSelector: { matchLabels: { templated: "yes" } },
    },
    generate: [
      {
        template: {
          interpolate: "cel",
          value: [
            "apiVersion: v1",
            "kind: ConfigMap",
            "metadata:",
            "  name: from-template",
            "  namespace: (( object.metadata.name ))",
            "data:",
            "  from: ns-(( object.metadata.name ))",
            "",
          ].join("\n"),
        },
      },
    ],
  },
});

/** The `from` of ConfigMap `name` in `namespace`, or undefined when there is none. */
async function fromOf(namespace: string, name: string): Promise<string | undefined> {
  const r = await current().kubectl(["get", "configmap", name, "-n", namespace, "-o", "jsonpath={.data.from}"]);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** A tenant's NamespacedGeneratingPolicy in tenant-a over its ConfigMaps labelled `label`=yes. */
const tenantPolicy = (name: string, label: string, expression: string): string =>
  JSON.stringify({
    apiVersion: "policies.kyverno.io/v1",
    kind: "NamespacedGeneratingPolicy",
    metadata: { name, namespace: "tenant-a" },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        objectSelector: { matchLabels: { [label]: "yes" } },
      },
      generate: [{ expression }],
    },
  });

/** copy-to: a ConfigMap `copied` in the namespace its trigger's label `to` names. */
const COPY_TO = tenantPolicy(
  "copy-to",
  "copy",
  `generator.Apply(object.metadata.labels["to"], ${configMapOf('"copied"', "object.metadata.name")})`,
);

/** escalate: a ClusterRole, asked for in the tenant's own namespace. */
const ESCALATE = tenantPolicy(
  "escalate",
  "escalate",
  'generator.Apply("tenant-a", [{"apiVersion": dyn("rbac.authorization.k8s.io/v1"), "kind": dyn("ClusterRole"), "metadata": dyn({"name": "tenant-a-escalate"}), "rules": dyn([])}])',
);

/** The message of the Failed UpdateRequest of policy `name`, once there is one. */
function failedRequest(name: string, timeoutMs: number): Promise<string> {
  return eventually(`a Failed UpdateRequest of ${name}`, timeoutMs, async () => {
    const list = JSON.parse(
      await ok([
        "get",
        "updaterequests.kyverno.io",
        "-n",
        "bylaw",
        "-l",
        `generate.kyverno.io/policy-name=${name}`,
        "-o",
        "json",
      ]),
    ) as { items: { status?: { state?: string; message?: string } }[] };
    return list.items.find((i) => i.status?.state === "Failed")?.status?.message;
  });
}

const configMap = (name: string, namespace: string, labels: Record<string, string>): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data: { a: "b" } });

const NETPOL =
  '[{"apiVersion": dyn("networking.k8s.io/v1"), "kind": dyn("NetworkPolicy"), "metadata": dyn({"name": "default-deny"}), "spec": dyn({"podSelector": dyn({}), "policyTypes": dyn(["Ingress"])})}]';

const gpol = (expression: string): string =>
  JSON.stringify({
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: "default-deny" },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
      },
      generate: [{ expression }],
    },
  });

/** The GeneratingPolicy's conditionStatus once its `ready` is `want` (Kyverno's shape: every condition True). */
function ready(want: boolean, timeoutMs: number): Promise<{ ready: boolean; message: string }> {
  return eventually(`default-deny ready ${String(want)}`, timeoutMs, async () => {
    const object = JSON.parse(
      await ok(["get", "generatingpolicies.policies.kyverno.io", "default-deny", "-o", "json"]),
    ) as { status?: { conditionStatus?: { ready?: boolean; message?: string } } };
    const status = object.status?.conditionStatus;
    if (status?.ready !== want) throw new Error(`conditionStatus is ${JSON.stringify(status)}`);
    return { ready: want, message: status.message ?? "" };
  });
}

/** The labels of the NetworkPolicy default-deny in `namespace`, once it exists. */
function netpolLabels(namespace: string, timeoutMs: number): Promise<Record<string, string>> {
  return eventually(`NetworkPolicy default-deny in ${namespace}`, timeoutMs, async () => {
    const r = await current().kubectl(["get", "networkpolicy", "default-deny", "-n", namespace, "-o", "json"]);
    if (r.code !== 0) return undefined;
    return (JSON.parse(r.stdout) as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {};
  });
}

describe("GeneratingPolicy in a cluster", { timeout: buildTimeoutMs + 15 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["apply", "-f", "-"], NETPOL_GRANTS);
    for (const ns of ["apps", "ops", "tenant-a"]) await ok(["create", "namespace", ns]);
    await ok(["label", "namespace", "tenant-a", "team=alpha"]);
  });

  after(async () => {
    for (const p of running) await p.kill("SIGKILL");
    await tearDown(cluster);
  });

  test("one whose expression does not compile is refused at kubectl apply, naming the policy and field", async () => {
    const text = await eventually("the policy webhook registered", 90_000, async () => {
      const r = await current().kubectl(["apply", "-f", "-"], gpol("generator.Apply(object.metadata.name, ["));
      return r.code !== 0 && r.stderr.includes("denied the request") ? r.stderr : undefined;
    });
    assert.match(text, /GeneratingPolicy default-deny: spec\.generate\[0\]\.expression: compilation failed/);
  });

  test("admitted at kubectl apply; not Ready while no background component runs, naming it", async () => {
    await ok(["apply", "-f", "-"], gpol(`generator.Apply(object.metadata.name, ${NETPOL})`));
    const c = await ready(false, 60_000);
    assert.match(c.message, /GeneratingPolicy default-deny: Bylaw does not run GeneratingPolicies here/);
  });

  test("with the background component: Ready, and each new Namespace gets the NetworkPolicy, with Kyverno's labels", async () => {
    running.push(await startComponent(current(), "background"));
    await ready(true, 90_000);
    for (const ns of ["team-a", "team-b"]) {
      await ok(["create", "namespace", ns]);
      const labels = await netpolLabels(ns, 60_000);
      assert.equal(labels["app.kubernetes.io/managed-by"], "kyverno");
      assert.equal(labels["generate.kyverno.io/policy-name"], "default-deny");
      assert.equal(labels["generate.kyverno.io/trigger-kind"], "Namespace");
      assert.ok((labels["generate.kyverno.io/trigger-uid"] ?? "") !== "", JSON.stringify(labels));
      // As Kyverno's CEL generator labels them: the trigger's name, no rule name.
      assert.equal(labels["generate.kyverno.io/trigger-name"], ns);
      assert.equal(labels["generate.kyverno.io/rule-name"], undefined);
    }
    const spec = await ok([
      "get",
      "networkpolicy",
      "default-deny",
      "-n",
      "team-a",
      "-o",
      "jsonpath={.spec.policyTypes}",
    ]);
    assert.equal(spec, '["Ingress"]');
    await eventually("the UpdateRequests deleted once done", 60_000, async () =>
      (await ok(["get", "updaterequests.kyverno.io", "-n", "bylaw", "-o", "name"])).trim() === "" ? true : undefined,
    );
  });

  test("synchronize: deleting the trigger deletes what was generated for it", async () => {
    await ok(["apply", "-f", "-"], DERIVE);
    await eventually("derive to generate for a new trigger", 120_000, async () => {
      const name = `probe-${Date.now()}`;
      await ok(["create", "-f", "-"], configMap(name, "apps", { derive: "yes" }));
      for (let i = 0; i < 20; i++) {
        if ((await fromOf("apps", `${name}-derived`)) === name) return true;
        await new Promise((r) => setTimeout(r, 500));
      }
      return undefined;
    });
    await ok(["create", "-f", "-"], configMap("web", "apps", { derive: "yes" }));
    await eventually("web-derived", 60_000, async () =>
      (await fromOf("apps", "web-derived")) === "web" ? true : undefined,
    );
    await ok(["delete", "configmap", "web", "-n", "apps"]);
    await eventually("web-derived deleted with its trigger", 60_000, async () =>
      (await fromOf("apps", "web-derived")) === undefined ? true : undefined,
    );
  });

  test("synchronize: an update after which the trigger leaves the policy's matchConditions deletes what was generated for it", async () => {
    await ok(["apply", "-f", "-"], ISOLATE);
    await eventually("isolate to generate for a labelled Namespace", 120_000, async () => {
      const r = await current().kubectl(["create", "namespace", "iso-a"]);
      if (r.code !== 0 && !/AlreadyExists/.test(r.stderr)) return undefined;
      await ok(["label", "--overwrite", "namespace", "iso-a", "isolate=yes"]);
      for (let i = 0; i < 20; i++) {
        if ((await fromOf("iso-a", "isolated")) === "iso-a") return true;
        await new Promise((r) => setTimeout(r, 500));
      }
      return undefined;
    });
    await ok(["label", "namespace", "iso-a", "isolate-"]);
    await eventually("isolated deleted once iso-a is no longer labelled", 60_000, async () =>
      (await fromOf("iso-a", "isolated")) === undefined ? true : undefined,
    );
  });

  test("a template (interpolate: cel) generates its document with the placeholders filled in", async () => {
    await ok(["apply", "-f", "-"], TEMPLATED);
    await eventually("templated to generate for a labelled Namespace", 120_000, async () => {
      const r = await current().kubectl(["create", "namespace", "tpl-a"]);
      if (r.code !== 0 && !/AlreadyExists/.test(r.stderr)) return undefined;
      await ok(["label", "--overwrite", "namespace", "tpl-a", "templated=yes"]);
      for (let i = 0; i < 20; i++) {
        if ((await fromOf("tpl-a", "from-template")) === "ns-tpl-a") return true;
        await new Promise((r) => setTimeout(r, 500));
      }
      return undefined;
    });
  });

  test("synchronize: a copy edited or deleted by someone else is put back", async () => {
    await withLogs(() => editedPutBack());
  });

  test("synchronize: a change to the object read with resource.Get reaches every copy", async () => {
    await withLogs(() => sourceFollowed());
  });

  async function editedPutBack(): Promise<void> {
    await ok(["create", "-f", "-"], configMap("edited", "apps", { derive: "yes" }));
    await eventually("edited-derived", 60_000, async () =>
      (await fromOf("apps", "edited-derived")) === "edited" ? true : undefined,
    );
    // The watch of the copies starts once the policy has run; an edit before it is tried again.
    await eventually("the edit reverted", 90_000, async () => {
      await ok([
        "patch",
        "configmap",
        "edited-derived",
        "-n",
        "apps",
        "--type",
        "merge",
        "-p",
        `{"data":{"from":"tampered-${Date.now()}"}}`,
      ]);
      for (let i = 0; i < 20; i++) {
        if ((await fromOf("apps", "edited-derived")) === "edited") return true;
        await new Promise((r) => setTimeout(r, 500));
      }
      return undefined;
    });
    await ok(["delete", "configmap", "edited-derived", "-n", "apps"]);
    await eventually("the deleted copy back", 60_000, async () =>
      (await fromOf("apps", "edited-derived")) === "edited" ? true : undefined,
    );
    // The trigger's own data is not the policy's: it stays as it is.
    assert.equal(await ok(["get", "configmap", "edited", "-n", "apps", "-o", "jsonpath={.data.a}"]), "b");
  }

  async function sourceFollowed(): Promise<void> {
    await ok(["create", "configmap", "source", "-n", "ops", "--from-literal=from=v1"]);
    await ok(["apply", "-f", "-"], CLONE);
    await eventually("clone to generate for a new trigger", 120_000, async () => {
      const name = `probe-${Date.now()}`;
      await ok(["create", "-f", "-"], configMap(name, "apps", { clone: "yes" }));
      for (let i = 0; i < 20; i++) {
        if ((await fromOf("apps", `${name}-cloned`)) === "v1") return true;
        await new Promise((r) => setTimeout(r, 500));
      }
      return undefined;
    });
    for (const name of ["one", "two"]) await ok(["create", "-f", "-"], configMap(name, "apps", { clone: "yes" }));
    for (const name of ["one", "two"])
      await eventually(`${name}-cloned`, 60_000, async () =>
        (await fromOf("apps", `${name}-cloned`)) === "v1" ? true : undefined,
      );
    await ok(["patch", "configmap", "source", "-n", "ops", "--type", "merge", "-p", '{"data":{"from":"v2"}}']);
    for (const name of ["one", "two"])
      await eventually(`${name}-cloned follows the source`, 60_000, async () =>
        (await fromOf("apps", `${name}-cloned`)) === "v2" ? true : undefined,
      );
    await ok(["delete", "generatingpolicies.policies.kyverno.io", "clone"]);
  }

  /** A failure carries the background component's last log lines. */
  async function withLogs(run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (e) {
      const logs = running.map((p) => p.output().slice(-6000)).join("\n---\n");
      throw new Error(`${e instanceof Error ? e.message : String(e)}\nbackground component log:\n${logs}`);
    }
  }

  test("generateExisting: a Namespace that exists when the policy arrives gets its ConfigMap", async () => {
    await ok(["apply", "-f", "-"], TEAM_CONFIG);
    await eventually("team-tenant-a in ops", 120_000, async () =>
      (await fromOf("ops", "team-tenant-a")) === "tenant-a" ? true : undefined,
    );
  });

  test("deleting a synchronized policy deletes its downstream; orphanDownstreamOnPolicyDelete keeps it", async () => {
    await ok(["create", "-f", "-"], configMap("api", "apps", { derive: "yes" }));
    await eventually("api-derived", 60_000, async () =>
      (await fromOf("apps", "api-derived")) === "api" ? true : undefined,
    );
    await ok(["delete", "generatingpolicies.policies.kyverno.io", "derive", "team-config"]);
    await eventually("api-derived deleted with its policy", 60_000, async () =>
      (await fromOf("apps", "api-derived")) === undefined ? true : undefined,
    );
    // The trigger stays; so does team-config's orphaned downstream.
    assert.equal((await ok(["get", "configmap", "api", "-n", "apps", "-o", "name"])).trim(), "configmap/api");
    assert.equal(await fromOf("ops", "team-tenant-a"), "tenant-a");
  });

  test("tenants: a NamespacedGeneratingPolicy generates in its own namespace; another namespace or a cluster-scoped object fails, nothing written", async () => {
    await ok(["apply", "-f", "-"], COPY_TO);
    await ok(["apply", "-f", "-"], ESCALATE);
    await eventually("copy-to to generate in tenant-a", 120_000, async () => {
      const name = `own-${Date.now()}`;
      await ok(["create", "-f", "-"], configMap(name, "tenant-a", { copy: "yes", to: "tenant-a" }));
      for (let i = 0; i < 20; i++) {
        if ((await fromOf("tenant-a", "copied")) === name) return true;
        await new Promise((r) => setTimeout(r, 500));
      }
      return undefined;
    });
    await ok(["create", "-f", "-"], configMap("out", "tenant-a", { copy: "yes", to: "apps" }));
    const out = await failedRequest("copy-to", 60_000);
    assert.match(out, /policy tenant-a\/copy-to may only generate in its own namespace "tenant-a", not "apps"/);
    assert.equal(await fromOf("apps", "copied"), undefined);
    await ok(["create", "-f", "-"], configMap("up", "tenant-a", { escalate: "yes" }));
    const up = await failedRequest("escalate", 60_000);
    assert.match(
      up,
      /a namespaced NamespacedGeneratingPolicy \(namespace tenant-a\) cannot generate the cluster-scoped ClusterRole tenant-a\/tenant-a-escalate/,
    );
    const role = await current().kubectl(["get", "clusterrole", "tenant-a-escalate", "-o", "name"]);
    assert.notEqual(role.code, 0, "no ClusterRole was written");
  });

  test("a policies.kyverno.io PolicyException exempts a trigger from the GeneratingPolicy: nothing generated for it", async () => {
    await restartBylaw(current(), { extraArgs: "--enable-policy-exception --exception-namespace default" });
    for (const p of running.splice(0)) await p.kill("SIGKILL");
    running.push(
      await startComponent(current(), "background", ["--enable-policy-exception", "--exception-namespace", "default"]),
    );
    await ok(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "policies.kyverno.io/v1",
        kind: "PolicyException",
        metadata: { name: "sandbox", namespace: "default" },
        spec: {
          policyRefs: [{ kind: "GeneratingPolicy", name: "default-deny" }],
          matchConditions: [{ name: "sandbox", expression: "object.metadata.name.startsWith('sandbox')" }],
        },
      }),
    );
    await ready(true, 90_000);
    // Exempt while both processes have read the exception: a sandbox Namespace made after a plain one got its NetworkPolicy.
    await eventually("a sandbox namespace exempted", 120_000, async () => {
      const stamp = Date.now();
      await ok(["create", "namespace", `sandbox-${stamp}`]);
      await ok(["create", "namespace", `plain-${stamp}`]);
      await netpolLabels(`plain-${stamp}`, 60_000);
      const r = await current().kubectl(["get", "networkpolicy", "-n", `sandbox-${stamp}`, "-o", "name"]);
      return r.code === 0 && r.stdout.trim() === "" ? true : undefined;
    });
  });
});
