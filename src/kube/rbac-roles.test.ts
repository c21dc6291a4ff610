import { test } from "node:test";
import assert from "node:assert/strict";
import { rolesOf } from "./rbac-roles.js";
import type { KubeObject } from "./types.js";

const rb = (ns: string, kind: string, name: string, subjects: object[]): KubeObject =>
  ({
    metadata: { name: `rb-${name}`, namespace: ns },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind, name },
    subjects,
  }) as unknown as KubeObject;
const crb = (name: string, subjects: object[]): KubeObject =>
  ({
    metadata: { name: `crb-${name}` },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
    subjects,
  }) as unknown as KubeObject;

const roleBindings = [
  rb("team-a", "Role", "developer", [{ kind: "User", name: "alice" }]),
  rb("team-b", "ClusterRole", "view", [{ kind: "Group", name: "auditors" }]),
  rb("team-b", "Role", "deployer", [{ kind: "ServiceAccount", name: "ci", namespace: "team-b" }]),
  rb("team-c", "Role", "other", [{ kind: "User", name: "bob" }]),
];
const clusterRoleBindings = [
  crb("admin", [{ kind: "Group", name: "admins" }]),
  crb("ci-reader", [{ kind: "ServiceAccount", name: "ci", namespace: "team-b" }]),
];

test("a user gets the Roles and ClusterRoles bound to them or their groups", () => {
  // "view" is bound to auditors by a RoleBinding in team-b only: it is not a cluster-wide role (rule 1; see below).
  assert.deepEqual(rolesOf({ username: "alice", groups: ["auditors", "admins"] }, roleBindings, clusterRoleBindings), {
    roles: ["team-a:developer"],
    clusterRoles: ["admin"],
  });
  assert.deepEqual(rolesOf({ username: "carol", groups: [] }, roleBindings, clusterRoleBindings), {
    roles: [],
    clusterRoles: [],
  });
});

test("a ServiceAccount matches by <namespace>:<name>, the binding's namespace for a RoleBinding, the subject's for a ClusterRoleBinding", () => {
  assert.deepEqual(
    rolesOf(
      { username: "system:serviceaccount:team-b:ci", groups: ["system:serviceaccounts", "auditors"] },
      roleBindings,
      clusterRoleBindings,
    ),
    { roles: ["team-b:deployer"], clusterRoles: ["ci-reader"] },
  );
  // Groups are not consulted for a ServiceAccount (Kyverno's matchSubjectsMap).
  assert.deepEqual(
    rolesOf({ username: "system:serviceaccount:team-a:ci", groups: ["auditors"] }, roleBindings, clusterRoleBindings),
    { roles: [], clusterRoles: [] },
  );
});

test("tenant-isolation rule 1: a RoleBinding to a ClusterRole, made in one namespace, never counts as a cluster-wide role", () => {
  // Kyverno's getRoleRefByRoleBindings adds the ClusterRole of a namespaced RoleBinding to clusterRoles;
  // a tenant who may bind roles in her namespace would escape every `clusterRoles` exclusion that way.
  const tenant = { username: "tenant-a-admin", groups: ["system:authenticated"] };
  const selfBound = [
    rb("tenant-a", "ClusterRole", "cluster-admin", [{ kind: "User", name: "tenant-a-admin" }]),
    rb("tenant-a", "ClusterRole", "platform-exempt", [{ kind: "Group", name: "system:authenticated" }]),
  ];
  assert.deepEqual(rolesOf(tenant, selfBound, []), { roles: [], clusterRoles: [] });
  const sa = { username: "system:serviceaccount:tenant-a:builder", groups: [] };
  const saBound = [rb("tenant-a", "ClusterRole", "cluster-admin", [{ kind: "ServiceAccount", name: "builder" }])];
  assert.deepEqual(rolesOf(sa, saBound, []), { roles: [], clusterRoles: [] });
  // The same ClusterRole bound by a ClusterRoleBinding is one.
  assert.deepEqual(rolesOf(tenant, selfBound, [crb("cluster-admin", [{ kind: "User", name: "tenant-a-admin" }])]), {
    roles: [],
    clusterRoles: ["cluster-admin"],
  });
});
