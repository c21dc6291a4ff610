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
  assert.deepEqual(rolesOf({ username: "alice", groups: ["auditors", "admins"] }, roleBindings, clusterRoleBindings), {
    roles: ["team-a:developer"],
    clusterRoles: ["admin", "view"],
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
