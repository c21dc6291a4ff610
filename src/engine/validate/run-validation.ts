/** Dispatch a validate block (or a foreach body) to pattern, anyPattern, deny or foreach. */
import type { Conditions, ForEachValidation } from "../api/policy.js";
import type { JsonValue } from "../api/json.js";
import { validateForEach } from "./validate-foreach.js";
import { validateAnyPattern, validatePattern } from "./validate-pattern.js";
import { validateDeny } from "./validate-deny.js";
import type { ValidateOutcome, ValidateScope } from "./types.js";

interface ValidationBody {
  readonly pattern?: JsonValue;
  readonly anyPattern?: readonly JsonValue[];
  readonly deny?: { readonly conditions?: Conditions };
  readonly foreach?: readonly ForEachValidation[];
}

/** Returns undefined when nothing applied (a foreach whose elements were all skipped): no rule result. */
export function runValidation(
  body: ValidationBody,
  message: string | undefined,
  scope: ValidateScope,
  depth: number,
): ValidateOutcome | undefined {
  if (body.deny !== undefined) return validateDeny(body.deny.conditions, message, scope);
  if (body.pattern !== undefined) return validatePattern(body.pattern, message, scope);
  if (body.anyPattern !== undefined) return validateAnyPattern(body.anyPattern, message, scope);
  if (body.foreach !== undefined) return validateForEach(body.foreach, message, scope, depth);
  return {
    status: "error",
    message: `rule ${scope.ruleName} has no pattern, anyPattern, deny or foreach to validate with`,
  };
}
