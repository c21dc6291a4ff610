/**
 * The CEL kinds Bylaw runs (ValidatingPolicy, NamespacedValidatingPolicy, ValidatingAdmissionPolicy)
 * validate through the pipeline, whose CEL branch runs their compiled programs; they take no part in
 * mutate or generate.
 */
import { validatePolicy } from "../../pipeline/validate-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import { noGeneration, noMutation } from "../no-phase.js";

export const CEL_EVALUATION: KindEvaluation = {
  validate: validatePolicy,
  mutate: noMutation,
  generate: noGeneration,
};
