/**
 * What a kind family runs at evaluation (ADR 0005 §2): validate, mutate and generate, chosen by the
 * policy's language. `engine.ts` asks `evaluationOf` for every call; each family's `evaluate.ts`
 * adapts `pipeline/`.
 */
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { KindEvaluation } from "./kind-evaluation.js";
import { GENERATING_EVALUATION } from "./generating/evaluate.js";
import { KYVERNO_EVALUATION } from "./kyverno/evaluate.js";
import { UNSUPPORTED_EVALUATION } from "./unsupported/evaluate.js";
import { CEL_EVALUATION } from "./validating/evaluate.js";
import { DELETING_EVALUATION } from "./deleting/evaluate.js";
import { MUTATING_EVALUATION } from "./mutating/evaluate.js";
import { MUTATING_ADMISSION_EVALUATION } from "./mutating-admission-policy/evaluate.js";
import { IMAGE_VALIDATING_EVALUATION } from "./image-validating/evaluate.js";

export function evaluationOf(policy: CompiledPolicy): KindEvaluation {
  switch (policy.language) {
    case "kyverno":
      return KYVERNO_EVALUATION;
    case "cel":
      return CEL_EVALUATION;
    case "generating":
      return GENERATING_EVALUATION;
    case "mutating":
      return policy.mutatingAdmission !== undefined ? MUTATING_ADMISSION_EVALUATION : MUTATING_EVALUATION;
    case "unsupported":
      return UNSUPPORTED_EVALUATION;
    case "deleting":
      return DELETING_EVALUATION;
    case "image-validating":
      return IMAGE_VALIDATING_EVALUATION;
  }
}
