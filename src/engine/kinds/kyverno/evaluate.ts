/** kyverno.io rules run through the pipeline as they always have; this folder only adapts it. */
import { generatePolicy } from "../../pipeline/generate-policy.js";
import { mutatePolicy } from "../../pipeline/mutate-policy.js";
import { validatePolicy } from "../../pipeline/validate-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";

export const KYVERNO_EVALUATION: KindEvaluation = {
  validate: validatePolicy,
  mutate: mutatePolicy,
  generate: generatePolicy,
};
