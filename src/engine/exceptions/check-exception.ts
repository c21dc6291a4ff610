/**
 * What Kyverno's exception webhook rejects (`PolicyExceptionSpec.Validate`): a match block Kyverno
 * cannot build (any and all together, name with names, bad selectors, subjects or roles), user
 * information in `match` while background processing is on, and condition operators it does not
 * know. An empty filter or a `{{ }}` in match is only a warning: Kyverno accepts both, and the
 * filter then selects nothing or compares the text as written.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { AnyAllConditions, MatchResources, ResourceFilter } from "../api/policy.js";
import { checkOperatorName } from "../conditions/index.js";
import { matchBlockProblems } from "../match/index.js";
import { checkPodSecurityExclude } from "../pod-security/index.js";
import { problem, warning, type PolicyProblem } from "../api/problem.js";
import type { ParsedException } from "./parse-exception.js";

const ACCEPTED_BY_KYVERNO = [/^match resources not specified$/, /^should not have variables in match section$/];

export function checkException(parsed: ParsedException): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const m = parsed.match;
  if ((m.any ?? []).length > 0 || (m.all ?? []).length > 0) {
    for (const p of matchBlockProblems(m, "spec.match", "match")) {
      const soft = ACCEPTED_BY_KYVERNO.some((re) => re.test(p.message));
      problems.push(soft ? warning(p.path, `${p.message} (this filter selects nothing)`) : problem(p.path, p.message));
    }
  }
  if (parsed.background) problems.push(...userInfoForbidden(m));
  if (parsed.conditions !== undefined) problems.push(...checkConditions(parsed.conditions));
  // The same entry checks as a rule's podSecurity.exclude. The CRD's enum would refuse an unknown
  // control in a cluster; offline such an entry can only never apply, so these stay warnings.
  parsed.podSecurity.forEach((e, i) => {
    for (const p of checkPodSecurityExclude(e, `spec.podSecurity[${i}]`))
      problems.push(warning(p.path, `${p.message} (this entry excludes nothing)`));
  });
  return problems;
}

/** `MatchResources.ValidateNoUserInfo`: background exceptions cannot depend on who made the request. */
function userInfoForbidden(m: MatchResources): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const check = (f: ResourceFilter, path: string): void => {
    for (const field of ["roles", "clusterRoles", "subjects"] as const) {
      const v = f[field];
      if (Array.isArray(v) && v.length > 0) {
        out.push(
          problem(
            `${path}.${field}`,
            "Forbidden: Usage of user info is forbidden (set spec.background: false to match on user information)",
          ),
        );
      }
    }
  };
  (m.any ?? []).forEach((f, i) => check(f, `spec.match.any[${i}]`));
  (m.all ?? []).forEach((f, i) => check(f, `spec.match.all[${i}]`));
  return out;
}

function checkConditions(c: AnyAllConditions): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  for (const mode of ["any", "all"] as const) {
    const list = c[mode];
    if (!Array.isArray(list)) continue;
    (list as readonly JsonValue[]).forEach((cond, i) => {
      const path = `spec.conditions.${mode}[${i}]`;
      if (!isObject(cond) || typeof cond["operator"] !== "string") {
        out.push(problem(path, "a condition needs key, operator and value"));
        return;
      }
      const op = cond["operator"];
      const msg = checkOperatorName(op);
      if (msg === undefined) return;
      out.push(op === "In" || op === "NotIn" ? warning(`${path}.operator`, msg) : problem(`${path}.operator`, msg));
    });
  }
  return out;
}
