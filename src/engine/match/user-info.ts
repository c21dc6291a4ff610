/**
 * User-info criteria of a match/exclude filter (Kyverno `api/kyverno/v1/user_info_types.go`): roles, clusterRoles, subjects.
 * Each list matches when any of its entries applies to the requesting user.
 */
import type { Subject } from "../api/policy.js";
import type { RequestUserInfo } from "../api/resource.js";
import { wildcardMatch } from "../values/wildcard.js";
import type { NamedCheck } from "./types.js";

export interface UserInfoCriteria {
  readonly roles?: readonly string[] | null;
  readonly clusterRoles?: readonly string[] | null;
  readonly subjects?: readonly Subject[] | null;
}

/** True when the request carries no user information at all (a background scan). */
export function isEmptyUserInfo(u: RequestUserInfo | undefined): boolean {
  if (u === undefined) return true;
  return (
    u.username === "" &&
    (u.uid ?? "") === "" &&
    u.groups.length === 0 &&
    u.roles.length === 0 &&
    u.clusterRoles.length === 0 &&
    Object.keys(u.extra ?? {}).length === 0
  );
}

/** Whether a filter carries any user-info criterion (an empty list still counts as written). */
export function hasUserInfoCriteria(c: UserInfoCriteria): boolean {
  return c.roles != null || c.clusterRoles != null || c.subjects != null;
}

/** Whether one of the subjects names the user (User and Group by wildcard, ServiceAccount by full name). */
function subjectsMatch(subjects: readonly Subject[], user: RequestUserInfo): boolean {
  return subjects.some((s) => {
    switch (s.kind) {
      case "ServiceAccount":
        return wildcardMatch(`system:serviceaccount:${s.namespace ?? ""}:${s.name}`, user.username);
      case "Group":
        return user.groups.some((g) => wildcardMatch(s.name, g));
      case "User":
        return wildcardMatch(s.name, user.username);
      default:
        return false;
    }
  });
}

/** Compile the user-info criteria of one filter into checks. */
export function compileUserInfoChecks(c: UserInfoCriteria): NamedCheck[] {
  const checks: NamedCheck[] = [];
  const roles = c.roles ?? [];
  if (roles.length > 0) checks.push({ field: "roles", holds: ({ user }) => user.roles.some((r) => roles.includes(r)) });
  const clusterRoles = c.clusterRoles ?? [];
  if (clusterRoles.length > 0)
    checks.push({
      field: "clusterRoles",
      holds: ({ user }) => user.clusterRoles.some((r) => clusterRoles.includes(r)),
    });
  const subjects = c.subjects ?? [];
  if (subjects.length > 0) checks.push({ field: "subjects", holds: ({ user }) => subjectsMatch(subjects, user) });
  return checks;
}
