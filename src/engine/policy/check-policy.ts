/**
 * The checks Kyverno makes when a policy is created that matter offline (spec §2.8, §5.5).
 * Each returns problems with field paths; errors make the policy invalid, warnings are reported.
 */
import { isObject } from "../api/json.js";
import type { ContextEntry, PolicyDocument, Rule } from "../api/policy.js";
import { problem, warning, type PolicyProblem } from "../api/problem.js";
import { checkRuleConditions } from "./check-conditions.js";
import { checkGenerateRule, checkMutate } from "./check-mutate-generate.js";
import { checkDeprecatedFields } from "./check-deprecated.js";
import { checkVerifyImages } from "./check-verify-images.js";
import { matchBlockProblems } from "../match/index.js";
import { namespaceFilterProblems } from "../match/namespaced-block.js";
import { wildcardKindProblems } from "./check-wildcard-kinds.js";
import { ELEMENT_VARIABLE, elementOutsideForeach } from "./element-outside-foreach.js";
import { userInfoMatchMessage, userVariableMessage } from "./background-variables.js";
import { invalidVariableProblems } from "./invalid-variables.js";

const RULE_TYPES = ["validate", "mutate", "generate", "verifyImages"] as const;
const RESERVED_CONTEXT_NAMES = new Set([
  "images",
  "request",
  "serviceAccountName",
  "serviceAccountNamespace",
  "element",
  "elementIndex",
]);
const VALIDATE_KINDS = ["pattern", "anyPattern", "deny", "foreach", "podSecurity", "cel", "manifests"] as const;
const USER_INFO_VARIABLE =
  /\{\{[^}]*(?<![\w."'])(serviceAccountName|serviceAccountNamespace|request\.userInfo|request\.roles|request\.clusterRoles)\b/;

export function checkPolicy(policy: PolicyDocument): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const spec = policy.spec;
  if (policy.kind === "ClusterPolicy" && policy.metadata.namespace) {
    out.push(
      problem(
        "metadata.namespace",
        "a ClusterPolicy is cluster-scoped and must not set metadata.namespace; use kind Policy for a namespaced policy",
      ),
    );
  }
  out.push(...checkDeprecatedFields(policy));
  if (spec.admission === false && spec.background === false) {
    out.push(problem("spec", "disabling both admission and background processing is not allowed"));
  }
  if (policy.kind === "Policy" && spec.validationFailureActionOverrides !== undefined) {
    out.push(
      problem(
        "spec.validationFailureActionOverrides",
        "validationFailureActionOverrides is only allowed in a ClusterPolicy",
      ),
    );
  }
  checkFailureAction(spec.validationFailureAction, "spec.validationFailureAction", out);
  const rules = spec.rules ?? [];
  if (rules.length === 0) out.push(problem("spec.rules", "a policy needs at least one rule"));
  const seen = new Set<string>();
  rules.forEach((rule, i) => {
    const path = `spec.rules[${i}]`;
    if (seen.has(rule.name)) out.push(problem(`${path}.name`, `Duplicate rule name: '${rule.name}'`));
    seen.add(rule.name);
    if (rule.name.length > 63)
      out.push(problem(`${path}.name`, `rule name '${rule.name}' is longer than 63 characters`));
    out.push(...checkRule(policy, rule, path, i));
  });
  return out;
}

function checkRule(policy: PolicyDocument, rule: Rule, path: string, index: number): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const types = RULE_TYPES.filter((t) => rule[t] !== undefined);
  if (types.length === 0)
    out.push(
      problem(
        path,
        `No operation defined in the rule '${rule.name}'. (supported operations are: mutation, validation, generation, verifyImages)`,
      ),
    );
  if (types.length > 1)
    out.push(
      problem(
        path,
        `Multiple operations defined in the rule '${rule.name}', only one operation (mutation, validation, generation or verifyImages) is allowed per rule`,
      ),
    );
  if (rule.match === undefined) out.push(problem(`${path}.match`, "match is required"));
  else out.push(...matchBlockProblems(rule.match, `${path}.match`).map((m) => problem(m.path, m.message)));
  if (rule.exclude !== undefined)
    out.push(...matchBlockProblems(rule.exclude, `${path}.exclude`).map((m) => problem(m.path, m.message)));
  out.push(...wildcardKindProblems(policy, rule, path));
  if (policy.kind === "Policy")
    for (const block of ["match", "exclude"] as const)
      out.push(...namespaceFilterProblems(rule[block], `${path}.${block}`));
  (rule.context ?? []).forEach((e, i) => out.push(...checkContextEntry(e, `${path}.context[${i}]`)));
  out.push(...checkRuleConditions(rule, path));
  if (rule.verifyImages !== undefined) out.push(...checkVerifyImages(policy, rule, path));
  if (rule.validate !== undefined) {
    const v = rule.validate;
    if (!isObject(v)) {
      out.push(problem(`${path}.validate`, "validate must be a mapping"));
    } else {
      const kinds = VALIDATE_KINDS.filter((k) => v[k] !== undefined);
      if (kinds.length !== 1) {
        out.push(
          problem(
            `${path}.validate`,
            `a validate rule needs exactly one of ${VALIDATE_KINDS.join(", ")}; found ${kinds.length === 0 ? "none" : kinds.join(", ")}`,
          ),
        );
      }
      checkFailureAction(v.failureAction, `${path}.validate.failureAction`, out);
      if (v.cel !== undefined && rule.context !== undefined) {
        out.push(
          problem(`${path}.context`, "context variables are not supported for CEL expressions in validate rules"),
        );
      }
    }
  }
  out.push(...variableAndActionProblems(policy, rule, path, index));
  if (rule.validate?.foreach === undefined && ELEMENT_VARIABLE.test(JSON.stringify(rule.validate ?? {}))) {
    out.push(problem(`${path}.validate`, elementOutsideForeach(rule.validate, "/validate")));
  }
  return out;
}

/**
 * Background mode's variables, the mutate and generate checks, then every variable (Kyverno checks
 * background mode's, then the mutate targets' (target-variables.ts), and stops at the first error).
 */
function variableAndActionProblems(policy: PolicyDocument, rule: Rule, path: string, index: number): PolicyProblem[] {
  const background = policy.spec.background !== false ? backgroundProblems(rule, path, index) : [];
  const mutateAndGenerate = [...checkMutate(policy, rule, path), ...checkGenerateRule(policy, rule, path)];
  const targets = mutateAndGenerate.some((p) => p.message.startsWith("policy contains invalid variables"));
  const variables = background.length === 0 && !targets ? invalidVariableProblems(policy, rule, path) : [];
  return [...background, ...mutateAndGenerate, ...variables];
}

/** User information a background scan does not have (Kyverno's wording: background-variables.ts). */
function backgroundProblems(rule: Rule, path: string, index: number): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const text = JSON.stringify({ ...rule, match: undefined, exclude: undefined });
  if (USER_INFO_VARIABLE.test(text)) {
    const token = [...text.matchAll(/\{\{[^{}]*\}\}/g)].map((m) => m[0]).find((t) => USER_INFO_VARIABLE.test(t));
    out.push(problem(path, userVariableMessage(token ?? "{{request.userInfo}}")));
  }
  if (/"(subjects|roles|clusterRoles)"/.test(JSON.stringify(rule.match ?? {})))
    out.push(problem(`${path}.match`, userInfoMatchMessage(index, rule.match)));
  return out;
}

function checkContextEntry(e: ContextEntry, path: string): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  if (!e.name) out.push(problem(`${path}.name`, "a name is required for context entries"));
  else if (RESERVED_CONTEXT_NAMES.has(e.name))
    out.push(
      problem(`${path}.name`, `entry name ${e.name} is invalid as it conflicts with a pre-defined variable ${e.name}`),
    );
  const sources = (["variable", "configMap", "apiCall", "imageRegistry", "globalReference"] as const).filter(
    (k) => e[k] !== undefined,
  );
  if (sources.length !== 1)
    out.push(
      problem(
        path,
        `exactly one of configMap or apiCall or imageRegistry or variable is required for context entries (found ${sources.length === 0 ? "none" : sources.join(", ")}; globalReference counts too)`,
      ),
    );
  if (e.variable) {
    // A null value is none (Kyverno's GetValue is nil), and so is an empty jmesPath.
    if ((e.variable.value === undefined || e.variable.value === null) && !e.variable.jmesPath)
      out.push(problem(`${path}.variable`, "a variable must define a value or a jmesPath expression"));
    if (e.variable.default !== undefined && !e.variable.jmesPath)
      out.push(
        problem(
          `${path}.variable.default`,
          "a variable must define a default value only when a jmesPath expression is defined",
        ),
      );
  }
  if (e.configMap && !e.configMap.name)
    out.push(problem(`${path}.configMap.name`, "a name is required for configMap context entry"));
  if (e.apiCall && e.apiCall.urlPath !== undefined && e.apiCall.service !== undefined)
    out.push(problem(`${path}.apiCall`, "a URLPath cannot be used for service API calls"));
  return out;
}

function checkFailureAction(v: unknown, path: string, out: PolicyProblem[]): void {
  if (v === undefined) return;
  if (v === "Audit" || v === "Enforce") return;
  if (v === "audit" || v === "enforce") {
    // Kyverno's policy webhook warning (pkg/validation/policy checkValidationFailureAction), behind the field path.
    out.push(warning(path, "Validation failure actions enforce/audit are deprecated, use Enforce/Audit instead."));
    return;
  }
  out.push(problem(path, `failure action must be Audit or Enforce, got ${JSON.stringify(v)}`));
}
