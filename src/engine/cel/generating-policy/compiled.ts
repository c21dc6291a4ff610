/** A GeneratingPolicy (policies.kyverno.io) compiled once: what evaluate.ts runs per trigger. */
import type { CelProgram } from "../types.js";
import type { CompiledTemplate } from "./template.js";
import type { CompiledConstraints } from "../validating-policy/match-constraints.js";

/** One `spec.generate[i]`: an expression that calls `generator.Apply`, or a template of the objects. */
export type CompiledGeneration =
  | {
      readonly kind: "expression";
      /** `spec.generate[i].expression`, for messages. */
      readonly expression: string;
      readonly program: CelProgram;
    }
  | { readonly kind: "template"; readonly template: CompiledTemplate };

export interface CompiledGeneratingPolicy {
  readonly constraints: CompiledConstraints;
  readonly matchConditions: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly variables: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly generate: readonly CompiledGeneration[];
  /** spec.evaluation.synchronize.enabled: downstream kept in sync with the policy and trigger. */
  readonly synchronize: boolean;
  /** spec.evaluation.generateExisting.enabled: the policy's creation runs it for existing triggers. */
  readonly generateExisting: boolean;
  /** spec.evaluation.orphanDownstreamOnPolicyDelete.enabled: downstream stays when the policy goes. */
  readonly orphanDownstreamOnPolicyDelete: boolean;
  /** The compile error every matched trigger answers with, if an expression did not compile. */
  readonly failure: string | undefined;
}

/**
 * The `generate.kyverno.io/rule-name` a GeneratingPolicy's downstream objects are found by: none,
 * as Kyverno labels them (generate/labels.ts `generatingLabels`), read as "" (what Bylaw wrote
 * before it followed Kyverno's labels), its one body having no name.
 */
export const GENERATING_DOWNSTREAM_RULE = "";
