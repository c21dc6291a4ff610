/**
 * The wording Kyverno's policy webhook gives a policy in background mode that reads user
 * information (pkg/validation/policy `ValidateVariables` and `containsUserVariables`):
 * `only select variables are allowed in background mode. Set spec.background=false to disable
 * background mode for this policy rule: <why>`, where <why> is `variable <{{…}}> is not allowed` for
 * a variable, or `invalid variable used at path: spec/rules[<i>]/match/<where>` for userInfo in a
 * match block (`roles`, `clusterRoles` or `subjects`, directly or under `any[<j>]`/`all[<j>]`).
 * Which policies are refused is check-policy.ts's; this only words it.
 */
import { isObject } from "../api/json.js";

const PREFIX =
  "only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule";

const USER_INFO_FIELDS = ["roles", "clusterRoles", "subjects"] as const;

/** The message for a user-information variable; `token` is the `{{…}}` as written. */
export function userVariableMessage(token: string): string {
  return `${PREFIX}: variable ${token} is not allowed`;
}

/** Where a match block sets user information, Kyverno's way: `roles`, `any[0]/subjects`, …; undefined when nowhere. */
function userInfoAt(match: unknown): string | undefined {
  if (!isObject(match)) return undefined;
  const own = USER_INFO_FIELDS.find((f) => match[f] !== undefined);
  if (own !== undefined) return own;
  for (const block of ["any", "all"] as const) {
    const list = match[block];
    if (!Array.isArray(list)) continue;
    for (const [j, filter] of list.entries()) {
      const field = isObject(filter) ? USER_INFO_FIELDS.find((f) => filter[f] !== undefined) : undefined;
      if (field !== undefined) return `${block}[${j}]/${field}`;
    }
  }
  return undefined;
}

/** The message for user information in rule `index`'s match block. */
export function userInfoMatchMessage(index: number, match: unknown): string {
  const where = userInfoAt(match);
  return `${PREFIX}: invalid variable used at path: spec/rules[${index}]/match${where !== undefined ? `/${where}` : ""}`;
}
