/**
 * allowExistingViolations (default true): on an UPDATE under Enforce, a failure that the old object
 * already had is not held against the request. As Kyverno's validateOldObject:
 * - "under Enforce" is the rule's failureAction, else the policy's validationFailureAction; no
 *   failureActionOverrides are read, so a namespace whose override enforces an Audit policy gets no
 *   allowance;
 * - the old object must match the rule as if it were created: operation CREATE, no subresource,
 *   its own kind, and a user who is nobody (a rule that selects users, roles or an operation other
 *   than CREATE does not match it);
 * - it is then evaluated as created: `request.object` is the old object, `request.oldObject` null,
 *   the operation CREATE; the rule's context entries load again and its preconditions must hold;
 * - only a failure of the old object too excuses the new one.
 */
import { parseApiVersion, resourceApiVersion, resourceKind } from "../api/resource.js";
import { setDotted } from "../context/request-context.js";
import type { MatchRequest } from "../match/index.js";
import { runValidation } from "../validate/run-validation.js";
import { ruleMatches } from "./match-rule.js";
import { ruleScope, type RuleRun } from "./rule-scope.js";

/** Kyverno's stand-in requester for the old object's match: no real user, group or role is it. */
const NOBODY = {
  username: "kyverno:kyverno-invalid-controller",
  uid: "kyverno:invaliduid",
  groups: ["kyverno:invalidgroup"],
  roles: ["kyverno:invalidrole"],
  clusterRoles: ["kyverno:invalidrole"],
};

export function preExistingViolation(run: RuleRun): boolean {
  const { policy, rule: compiled } = run;
  const request = run.request.request;
  const old = request.oldResource;
  const validate = compiled.rule.validate;
  if (run.request.operation !== "UPDATE" || old === undefined || validate === undefined) return false;
  if (validate.allowExistingViolations === false) return false;
  const policyAction = policy.language === "kyverno" ? policy.document.spec.validationFailureAction : compiled.action;
  const action = validate.failureAction ?? policyAction ?? "Audit";
  if (action.toLowerCase() !== "enforce") return false;
  const gv = parseApiVersion(resourceApiVersion(old));
  const asCreated: MatchRequest = {
    resource: old,
    operation: "CREATE",
    gvk: { group: gv.group, version: gv.version, kind: resourceKind(old) },
    subresource: "",
    userInfo: NOBODY,
    namespaceLabels: request.namespaceLabels,
    policyNamespace: policy.namespace,
  };
  if (!ruleMatches(compiled, asCreated)) return false;
  const base = setDotted(
    setDotted(setDotted(run.base, "request.object", old), "request.oldObject", null),
    "request.operation",
    "CREATE",
  );
  const scope = ruleScope({ ...run, base });
  if (!scope.ok) return false;
  const previous = runValidation(
    validate,
    validate.message,
    {
      ruleName: compiled.name,
      target: old,
      vars: { ...scope.vars, operation: "CREATE" },
      patterns: policy.patterns,
    },
    0,
  );
  return previous?.status === "fail";
}
