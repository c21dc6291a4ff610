/**
 * Kyverno's admission checks of verifyImages entries (`pkg/validation/policy/validate.go` and
 * `ImageVerification.Validate`): an image reference is required (`imageReferences`, or the
 * deprecated `image`); image references hold no variables; and an entry whose failure action is
 * Audit must set `mutateDigest: false` (its CRD default is true). The failure action is the
 * policy's `validationFailureAction` (Audit unless Enforce), changed by each entry's own
 * `failureAction` for that entry and the ones after it, as Kyverno's loop carries it.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { PolicyDocument, Rule } from "../api/policy.js";
import { problem, type PolicyProblem } from "../api/problem.js";

const VARIABLE = /\{\{.*\}\}/s;

export function checkVerifyImages(policy: PolicyDocument, rule: Rule, path: string): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const entries = rule.verifyImages ?? [];
  let audit = !isEnforce(policy.spec.validationFailureAction);
  entries.forEach((entry, i) => {
    const at = `${path}.verifyImages[${i}]`;
    const e: Record<string, JsonValue> = isObject(entry) ? entry : {};
    if (typeof e["failureAction"] === "string") audit = !isEnforce(e["failureAction"]);
    if (audit && e["mutateDigest"] !== false)
      out.push(problem(`${at}.mutateDigest`, "mutateDigest must be set to false for ‘Audit’ failure action"));
    const references = [...strings(e["imageReferences"]), ...strings(e["skipImageReferences"])];
    const image = typeof e["image"] === "string" ? e["image"] : "";
    if (strings(e["imageReferences"]).length === 0 && image === "")
      out.push(problem(at, "An image reference is required"));
    if ([...references, image].some((r) => VARIABLE.test(r)))
      out.push(problem(at, "should not have variables in image reference section"));
  });
  return out;
}

function isEnforce(action: unknown): boolean {
  return action === "Enforce" || action === "enforce";
}

function strings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
