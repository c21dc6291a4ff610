/** Checks shared by the base and overlay tests of deploy/. */
import assert from "node:assert/strict";
import { at, byKind, list, one, type Manifest } from "./render.js";

export const SYSTEM_NAMESPACES = ["kube-system", "kube-public", "kube-node-lease", "bylaw"];
const CLUSTER_SCOPED = new Set(["Namespace", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "ClusterRole", "ClusterRoleBinding"]);
export const RBAC_KINDS = ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];

export function podOf(manifests: readonly Manifest[]): { deployment: Manifest; pod: unknown; container: unknown; labels: unknown } {
  const deployment = one(manifests, "Deployment", "bylaw");
  const pod = at(deployment, "spec", "template", "spec");
  return { deployment, pod, container: at(pod, "containers", 0), labels: at(deployment, "spec", "template", "metadata", "labels") };
}

/** The container port a Service/probe port (number or name) lands on. */
export function containerPort(container: unknown, port: unknown): unknown {
  if (typeof port === "number") return port;
  return at(list(at(container, "ports")).find((p) => at(p, "name") === port), "containerPort");
}

export function checkCommon(manifests: readonly Manifest[]): void {
  for (const m of manifests) {
    const ns = at(m, "metadata", "namespace");
    if (CLUSTER_SCOPED.has(String(m["kind"]))) assert.equal(ns, undefined, `${String(m["kind"])} is cluster-scoped`);
    else assert.equal(ns, "bylaw", `${String(m["kind"])} ${String(at(m, "metadata", "name"))} is in the bylaw namespace`);
  }
  for (const kind of RBAC_KINDS) {
    for (const role of byKind(manifests, kind)) {
      for (const rule of list(at(role, "rules"))) {
        for (const verb of list(at(rule, "verbs"))) assert.ok(["get", "list", "watch"].includes(String(verb)), `${kind} grants only reads, not ${String(verb)}`);
        assert.ok(!list(at(rule, "resources")).includes("*"), `${kind} names its resources`);
      }
    }
  }
}
