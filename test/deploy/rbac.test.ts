/**
 * deploy/base's RBAC, per component: each ServiceAccount is bound to one ClusterRole that only
 * aggregates (Bylaw's core grants and the ClusterRoles users labelled
 * `rbac.kyverno.io/aggregate-to-<component>` for Kyverno) and to one Role in the bylaw namespace.
 * The effective grants are listed here in full, so that widening one is a deliberate change.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { at, byKind, kubectlMissing, list, one, render, repoRoot, type Manifest } from "./render.js";

const SKIP = kubectlMissing();

const COMPONENTS = {
  "admission-controller": "bylaw",
  "background-controller": "bylaw-background-controller",
  "cleanup-controller": "bylaw-cleanup-controller",
  "reports-controller": "bylaw-reports-controller",
  monitoring: "bylaw-monitoring",
} as const;

const KYVERNO_READS = [
  "kyverno.io clusterpolicies get,list,watch",
  "kyverno.io globalcontextentries get,list,watch",
  "kyverno.io policies get,list,watch",
  "kyverno.io policyexceptions get,list,watch",
];
/** The policies.kyverno.io policy kinds the admission controller watches and writes the status of (src/kube/cel-policy-kinds.ts). */
const CEL_POLICY_PLURALS = [
  "validatingpolicies",
  "namespacedvalidatingpolicies",
  "mutatingpolicies",
  "namespacedmutatingpolicies",
  "imagevalidatingpolicies",
  "namespacedimagevalidatingpolicies",
  "generatingpolicies",
  "namespacedgeneratingpolicies",
  "deletingpolicies",
  "namespaceddeletingpolicies",
];
const EVENTS = [" events create,patch", "events.k8s.io events create,patch"];
const LEASES = ["coordination.k8s.io leases get,list,watch,create,update,patch"];
/** The policy set a controller's process loads, beside the kyverno.io kinds: the policies.kyverno.io kinds and exceptions. */
const CEL_READS = [...CEL_POLICY_PLURALS, "policyexceptions"].map((r) => `policies.kyverno.io ${r} get,list,watch`);

/** Cluster-wide grants (core ClusterRole) and grants in the bylaw namespace (Role), one line per group/resource. */
const EXPECTED: Record<keyof typeof COMPONENTS, { cluster: string[]; namespace: string[] | undefined }> = {
  "admission-controller": {
    cluster: [
      ...KYVERNO_READS,
      "kyverno.io clusterpolicies/status patch",
      "kyverno.io globalcontextentries/status patch",
      "kyverno.io policies/status patch",
      ...CEL_POLICY_PLURALS.flatMap((r) => [
        `policies.kyverno.io ${r} get,list,watch`,
        `policies.kyverno.io ${r}/status patch`,
      ]),
      "policies.kyverno.io policyexceptions get,list,watch",
      " configmaps get,list,watch",
      " namespaces get,list,watch",
      "rbac.authorization.k8s.io clusterrolebindings get,list,watch",
      "rbac.authorization.k8s.io rolebindings get,list,watch",
      "admissionregistration.k8s.io mutatingwebhookconfigurations patch [bylaw-resource-mutating-webhook-cfg,bylaw-resource-validating-webhook-cfg,bylaw-policy-validating-webhook-cfg]",
      "admissionregistration.k8s.io validatingwebhookconfigurations patch [bylaw-resource-mutating-webhook-cfg,bylaw-resource-validating-webhook-cfg,bylaw-policy-validating-webhook-cfg]",
      "authorization.k8s.io subjectaccessreviews create",
      // The policy-result Events of admission (kyverno-admission).
      "events.k8s.io events create,patch",
      "wgpolicyk8s.io clusterpolicyreports get,create,update",
      "wgpolicyk8s.io policyreports get,create,update",
      "openreports.io clusterreports get,create,update",
      "openreports.io reports get,create,update",
      // While the cleanup component is down, the leader sets cleanup policies not Ready.
      "kyverno.io cleanuppolicies list",
      "kyverno.io clustercleanuppolicies list",
      "kyverno.io cleanuppolicies/status patch",
      "kyverno.io clustercleanuppolicies/status patch",
    ],
    namespace: [
      "coordination.k8s.io leases create",
      "coordination.k8s.io leases get,update [bylaw-admission]",
      // Is the background or cleanup component up (Ready across processes)? Generate work handed over.
      // Has the reports component been started (RBACPermissionsGranted asked for its ServiceAccount)?
      "coordination.k8s.io leases get [bylaw-background-controller,bylaw-cleanup-controller,bylaw-reports-controller]",
      "kyverno.io updaterequests create",
      " secrets get,list,watch,update [bylaw-tls]",
    ],
  },
  "background-controller": {
    cluster: [
      ...KYVERNO_READS,
      ...CEL_READS,
      "kyverno.io updaterequests get,list,watch,create,update,patch,delete",
      "kyverno.io updaterequests/status update,patch",
      " configmaps get,list,watch",
      " namespaces get,list,watch",
      ...EVENTS,
    ],
    namespace: LEASES,
  },
  "cleanup-controller": {
    cluster: [
      "kyverno.io cleanuppolicies get,list,watch",
      "kyverno.io clustercleanuppolicies get,list,watch",
      "kyverno.io cleanuppolicies/status update,patch",
      "kyverno.io clustercleanuppolicies/status update,patch",
      "policies.kyverno.io deletingpolicies get,list,watch",
      "policies.kyverno.io namespaceddeletingpolicies get,list,watch",
      "policies.kyverno.io deletingpolicies/status update,patch",
      "policies.kyverno.io namespaceddeletingpolicies/status update,patch",
      // The PolicyExceptions a DeletingPolicy heeds (server/app/cleanup-exceptions.ts).
      "policies.kyverno.io policyexceptions get,list,watch",
      " namespaces get,list,watch",
      ...EVENTS,
    ],
    namespace: LEASES,
  },
  "reports-controller": {
    cluster: [
      ...KYVERNO_READS,
      ...CEL_READS,
      "reports.kyverno.io clusterephemeralreports get,list,watch,create,update,patch,delete,deletecollection",
      "reports.kyverno.io ephemeralreports get,list,watch,create,update,patch,delete,deletecollection",
      "wgpolicyk8s.io clusterpolicyreports get,list,watch,create,update,patch,delete,deletecollection",
      "wgpolicyk8s.io policyreports get,list,watch,create,update,patch,delete,deletecollection",
      "openreports.io clusterreports get,list,watch,create,update,patch,delete,deletecollection",
      "openreports.io reports get,list,watch,create,update,patch,delete,deletecollection",
      " configmaps get,list,watch",
      " namespaces get,list,watch",
      ...EVENTS,
    ],
    namespace: LEASES,
  },
  // Reads reports and serves them on /metrics: no Lease, so no Role in the bylaw namespace.
  monitoring: {
    cluster: [
      "wgpolicyk8s.io clusterpolicyreports get,list,watch",
      "wgpolicyk8s.io policyreports get,list,watch",
      "openreports.io clusterreports get,list,watch",
      "openreports.io reports get,list,watch",
      ...["vulnerabilityreports", "clustervulnerabilityreports", "configauditreports", "clusterconfigauditreports"].map(
        (r) => `aquasecurity.github.io ${r} get,list,watch`,
      ),
      " namespaces get,list,watch",
      // Events to Loki (--loki-events): new Events are read, never written.
      " events list,watch",
    ],
    namespace: undefined,
  },
};

/** The controllers bound to Kubernetes' `view` ClusterRole (rbac/view.yaml), as Kyverno's chart binds it. */
const VIEWERS = ["background-controller", "cleanup-controller", "reports-controller"] as const;

/** One line per (group, resource, verbs, names) of a role's rules, sorted. */
function grants(role: Manifest): string[] {
  return list(at(role, "rules"))
    .flatMap((rule) => {
      const names = list(at(rule, "resourceNames"));
      const suffix = names.length > 0 ? ` [${names.map(String).join(",")}]` : "";
      const verbs = list(at(rule, "verbs")).map(String).join(",");
      return list(at(rule, "apiGroups")).flatMap((g) =>
        list(at(rule, "resources")).map((r) => `${String(g)} ${String(r)} ${verbs}${suffix}`),
      );
    })
    .sort();
}

function boundTo(bindings: readonly Manifest[], roleKind: string, roleName: string): unknown[] {
  return bindings
    .filter((b) => at(b, "roleRef", "kind") === roleKind && at(b, "roleRef", "name") === roleName)
    .flatMap((b) => list(at(b, "subjects")));
}

describe("deploy/base RBAC: least privilege per component", { skip: SKIP ?? false }, () => {
  const manifests = SKIP === undefined ? render(join(repoRoot(), "deploy", "base")) : [];

  for (const [component, account] of Object.entries(COMPONENTS) as [keyof typeof COMPONENTS, string][]) {
    test(`${component}: ServiceAccount ${account}, an aggregating ClusterRole and a Role in bylaw, bound to it alone`, () => {
      one(manifests, "ServiceAccount", account);
      const subject = [{ kind: "ServiceAccount", name: account, namespace: "bylaw" }];
      const aggregate = one(manifests, "ClusterRole", `bylaw:${component}`);
      assert.equal(at(aggregate, "rules"), undefined, "the aggregating ClusterRole has no rules of its own");
      assert.deepEqual(at(aggregate, "aggregationRule", "clusterRoleSelectors"), [
        { matchLabels: { [`rbac.bylaw.dev/aggregate-to-${component}`]: "true" } },
        { matchLabels: { [`rbac.kyverno.io/aggregate-to-${component}`]: "true" } },
      ]);
      assert.deepEqual(boundTo(byKind(manifests, "ClusterRoleBinding"), "ClusterRole", `bylaw:${component}`), subject);
      assert.deepEqual(
        boundTo(byKind(manifests, "RoleBinding"), "Role", `bylaw:${component}`),
        EXPECTED[component].namespace !== undefined ? subject : [],
      );
      const core = one(manifests, "ClusterRole", `bylaw:${component}:core`);
      assert.equal(
        at(core, "metadata", "labels", `rbac.bylaw.dev/aggregate-to-${component}`),
        "true",
        "the core grants are aggregated",
      );
      assert.equal(
        at(core, "metadata", "labels", `rbac.kyverno.io/aggregate-to-${component}`),
        undefined,
        "and not into a Kyverno installed beside Bylaw",
      );
    });

    test(`${component}: exactly these grants`, () => {
      assert.deepEqual(
        grants(one(manifests, "ClusterRole", `bylaw:${component}:core`)),
        [...EXPECTED[component].cluster].sort(),
        "cluster-wide",
      );
      const namespaced = EXPECTED[component].namespace;
      if (namespaced === undefined) return;
      const role = one(manifests, "Role", `bylaw:${component}`);
      assert.equal(at(role, "metadata", "namespace"), "bylaw");
      assert.deepEqual(grants(role), [...namespaced].sort(), "in the bylaw namespace");
    });
  }

  test("no other RBAC object, and no ServiceAccount bound to anything else", () => {
    const names = (kind: string): string[] =>
      byKind(manifests, kind)
        .map((m) => String(at(m, "metadata", "name")))
        .sort();
    const components = Object.keys(COMPONENTS);
    assert.deepEqual(names("ClusterRole"), components.flatMap((c) => [`bylaw:${c}`, `bylaw:${c}:core`]).sort());
    assert.deepEqual(
      names("ClusterRoleBinding"),
      [...components.map((c) => `bylaw:${c}`), ...VIEWERS.map((c) => `bylaw:${c}:view`)].sort(),
    );
    const withRole = components.filter((c) => EXPECTED[c as keyof typeof COMPONENTS].namespace !== undefined);
    for (const kind of ["Role", "RoleBinding"])
      assert.deepEqual(names(kind), withRole.map((c) => `bylaw:${c}`).sort(), kind);
    assert.deepEqual(names("ServiceAccount"), Object.values(COMPONENTS).sort());
  });

  test("each component runs as its own ServiceAccount: the admission controller and the background, reports and cleanup controllers", () => {
    assert.deepEqual(
      byKind(manifests, "Deployment")
        .map((d) => at(d, "spec", "template", "spec", "serviceAccountName"))
        .sort(),
      ["bylaw", "bylaw-background-controller", "bylaw-cleanup-controller", "bylaw-reports-controller"],
    );
  });

  test("view: the background, reports and cleanup controllers' ServiceAccounts, not the admission controller's nor monitoring's", () => {
    const bound = boundTo(byKind(manifests, "ClusterRoleBinding"), "ClusterRole", "view");
    assert.deepEqual(
      bound.sort((a, b) => String(at(a, "name")).localeCompare(String(at(b, "name")))),
      VIEWERS.map((c) => ({ kind: "ServiceAccount", name: `bylaw-${c}`, namespace: "bylaw" })),
    );
  });
});
