/**
 * `request.roles` and `request.clusterRoles` from RoleBindings and ClusterRoleBindings: a RoleBinding
 * whose subject matches the user adds `<namespace>:<Role>` to roles; a ClusterRoleBinding adds its
 * ClusterRole to clusterRoles. A RoleBinding to a ClusterRole adds nothing: it grants the role in one
 * namespace only, and a tenant who may bind roles in her namespace could otherwise give herself any
 * ClusterRole name and escape a `clusterRoles` exclusion meant for cluster-wide roles
 * (tenant-isolation.md rule 1). Kyverno's pkg/userinfo/roleRef.go (getRoleRefByRoleBindings) counts
 * that binding's ClusterRole, in every namespace (kyverno/kyverno#12583); Bylaw does not.
 * For a ServiceAccount user (`system:serviceaccount:<ns>:<name>`) a subject matches when
 * `<binding namespace, or the subject's for a ClusterRoleBinding>:<subject name>` is `<ns>:<name>`;
 * for anyone else when the subject's name is the username or one of the groups. As in Kyverno the
 * subject's kind is not compared. The answer is deduplicated and sorted (as the ClusterFacts file's).
 */
import type { KubeObject } from "./types.js";
import { textOf } from "../engine/index.js";

const SA_PREFIX = "system:serviceaccount:";

interface Subject {
  readonly name?: unknown;
  readonly namespace?: unknown;
}

export interface UserRoles {
  readonly roles: readonly string[];
  readonly clusterRoles: readonly string[];
}

export function rolesOf(
  user: { readonly username: string; readonly groups: readonly string[] },
  roleBindings: readonly KubeObject[],
  clusterRoleBindings: readonly KubeObject[],
): UserRoles {
  const roles = new Set<string>();
  const clusterRoles = new Set<string>();
  const sa = user.username.includes(SA_PREFIX)
    ? user.username.slice(user.username.indexOf(SA_PREFIX) + SA_PREFIX.length)
    : undefined;
  const keys = new Set([...user.groups, user.username]);
  const matches = (s: Subject, namespace: string): boolean =>
    sa !== undefined ? `${namespace}:${textOf(s.name ?? "")}` === sa : typeof s.name === "string" && keys.has(s.name);
  for (const rb of roleBindings) {
    const ns = rb.metadata?.namespace ?? "";
    const ref = roleRef(rb);
    if (ref === undefined || !subjects(rb).some((s) => matches(s, ns))) continue;
    if (ref.kind === "Role") roles.add(`${ns}:${ref.name}`);
  }
  for (const crb of clusterRoleBindings) {
    const ref = roleRef(crb);
    if (ref === undefined || ref.kind !== "ClusterRole") continue;
    if (subjects(crb).some((s) => matches(s, typeof s.namespace === "string" ? s.namespace : "")))
      clusterRoles.add(ref.name);
  }
  return { roles: [...roles].sort(), clusterRoles: [...clusterRoles].sort() };
}

function roleRef(binding: KubeObject): { kind: string; name: string } | undefined {
  const r = binding["roleRef"] as { kind?: unknown; name?: unknown } | undefined;
  return r !== undefined && typeof r.kind === "string" && typeof r.name === "string"
    ? { kind: r.kind, name: r.name }
    : undefined;
}

function subjects(binding: KubeObject): Subject[] {
  const s = binding["subjects"];
  return Array.isArray(s) ? (s.filter((x) => x !== null && typeof x === "object") as Subject[]) : [];
}
