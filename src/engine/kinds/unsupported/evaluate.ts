/**
 * A kind Bylaw does not run answers in the validate phase only: its placeholder's error for every
 * resource in its scope (policy/unsupported-kind.ts, through the pipeline); mutate and generate
 * answer nothing, as they did.
 */
import { validatePolicy } from "../../pipeline/validate-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import { noGeneration, noMutation } from "../no-phase.js";

export const UNSUPPORTED_EVALUATION: KindEvaluation = {
  validate: validatePolicy,
  mutate: noMutation,
  generate: noGeneration,
};
