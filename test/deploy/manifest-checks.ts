/** Checks shared by the base and overlay tests of deploy/. */
import assert from "node:assert/strict";
import { at, byKind, list, one, type Manifest } from "./render.js";

export const SYSTEM_NAMESPACES = ["kube-system", "kube-public", "kube-node-lease", "bylaw"];
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "ClusterPolicy",
]);
export const RBAC_KINDS = ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];

export function podOf(manifests: readonly Manifest[]): {
  deployment: Manifest;
  pod: unknown;
  container: unknown;
  labels: unknown;
} {
  const deployment = one(manifests, "Deployment", "bylaw");
  const pod = at(deployment, "spec", "template", "spec");
  return {
    deployment,
    pod,
    container: at(pod, "containers", 0),
    labels: at(deployment, "spec", "template", "metadata", "labels"),
  };
}

/** The container port a Service/probe port (number or name) lands on. */
export function containerPort(container: unknown, port: unknown): unknown {
  if (typeof port === "number") return port;
  return at(
    list(at(container, "ports")).find((p) => at(p, "name") === port),
    "containerPort",
  );
}

export function checkCommon(manifests: readonly Manifest[]): void {
  for (const m of manifests) {
    const ns = at(m, "metadata", "namespace");
    if (CLUSTER_SCOPED.has(String(m["kind"]))) assert.equal(ns, undefined, `${String(m["kind"])} is cluster-scoped`);
    else
      assert.equal(ns, "bylaw", `${String(m["kind"])} ${String(at(m, "metadata", "name"))} is in the bylaw namespace`);
  }
  for (const kind of ["Role", "ClusterRole"]) {
    for (const role of byKind(manifests, kind))
      checkRules(`${kind} ${String(at(role, "metadata", "name"))}`, kind, list(at(role, "rules")));
  }
}

const READS = ["get", "list", "watch"];
/** Writes allowed on any resource a rule names; everything else needs a resourceNames list. */
/** (A SubjectAccessReview or TokenReview is an answer, not a stored object.) */
const FREE_WRITES = new Set([
  "subjectaccessreviews",
  "tokenreviews",
  "events",
  "leases",
  "updaterequests",
  "ephemeralreports",
  "clusterephemeralreports",
  "policyreports",
  "clusterpolicyreports",
  "reports",
  "clusterreports",
]);

/** No wildcard, no escalation verbs, secrets only by name in a Role, other writes only where listed. */
function checkRules(what: string, kind: string, rules: readonly unknown[]): void {
  for (const rule of rules) {
    const groups = list(at(rule, "apiGroups")).map(String);
    const resources = list(at(rule, "resources")).map(String);
    const verbs = list(at(rule, "verbs")).map(String);
    const named = list(at(rule, "resourceNames")).length > 0;
    for (const field of [groups, resources, verbs])
      assert.ok(!field.some((v) => v.includes("*")), `${what}: no wildcard (${JSON.stringify(rule)})`);
    for (const verb of ["escalate", "bind", "impersonate", "approve", "sign"])
      assert.ok(!verbs.includes(verb), `${what}: never ${verb}`);
    if (resources.includes("secrets")) {
      assert.ok(kind === "Role" && named, `${what}: Secrets only in Bylaw's namespace and only by name`);
    }
    if (named && verbs.includes("create")) assert.fail(`${what}: create cannot be limited by resourceNames`);
    const writes = verbs.filter((v) => !READS.includes(v));
    if (writes.length === 0 || named) continue;
    for (const resource of resources) {
      assert.ok(
        FREE_WRITES.has(resource) || resource.endsWith("/status"),
        `${what}: ${writes.join(",")} on ${resource} only by name`,
      );
    }
  }
}
