/**
 * Deprecated spec fields Kyverno 1.19 refuses (api/kyverno/v1 spec_types.go, `validateDeprecatedFields`
 * and `validateMutateTargets`; spec §1.2), and the webhook timeout range. Each message says what to
 * write instead.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { PolicyDocument } from "../api/policy.js";
import { problem, type PolicyProblem } from "../api/problem.js";

export function checkDeprecatedFields(policy: PolicyDocument): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const spec = policy.spec;
  const webhook = isObject(spec.webhookConfiguration) ? (spec.webhookConfiguration as Record<string, JsonValue>) : {};
  if (spec["generateExistingOnPolicyUpdate"] !== undefined) {
    out.push(
      problem(
        "spec.generateExistingOnPolicyUpdate",
        "remove the deprecated field spec.generateExistingOnPolicyUpdate; use generateExisting in each generate rule (spec.rules[*].generate.generateExisting)",
      ),
    );
  }
  if (spec["webhookTimeoutSeconds"] !== undefined && webhook["timeoutSeconds"] !== undefined) {
    out.push(
      problem(
        "spec.webhookTimeoutSeconds",
        "remove the deprecated field spec.webhookTimeoutSeconds; spec.webhookConfiguration.timeoutSeconds is set and replaces it",
      ),
    );
  }
  if (spec.failurePolicy !== undefined && webhook["failurePolicy"] !== undefined) {
    out.push(
      problem(
        "spec.failurePolicy",
        "remove the deprecated field spec.failurePolicy; spec.webhookConfiguration.failurePolicy is set and replaces it",
      ),
    );
  }
  for (const [path, value] of [
    ["spec.webhookTimeoutSeconds", spec["webhookTimeoutSeconds"]],
    ["spec.webhookConfiguration.timeoutSeconds", webhook["timeoutSeconds"]],
  ] as const) {
    if (
      value !== undefined &&
      value !== null &&
      !(typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 30)
    ) {
      out.push(
        problem(path, `the timeout must be a whole number of seconds between 1 and 30, got ${JSON.stringify(value)}`),
      );
    }
  }
  (spec.rules ?? []).forEach((rule, i) => {
    const mutate = rule.mutate;
    if (!isObject(mutate)) return;
    const own = mutate?.["mutateExistingOnPolicyUpdate"];
    const existing = own === true || (own === undefined && spec["mutateExistingOnPolicyUpdate"] === true);
    const targets = mutate?.["targets"];
    if (existing && !(Array.isArray(targets) && targets.length > 0)) {
      out.push(
        problem(
          `spec.rules[${i}].mutate.targets`,
          "mutate.targets has to be specified when mutateExistingOnPolicyUpdate is set",
        ),
      );
    }
  });
  return out;
}
