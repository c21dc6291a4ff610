/** A MutatingPolicy (policies.kyverno.io) compiled once: what evaluate.ts runs per request. */
import type { CelProgram } from "../types.js";
import type { CompiledConstraints } from "../validating-policy/match-constraints.js";

/** One `spec.mutations[]` entry: an ApplyConfiguration (an object to merge) or a JSONPatch (a list of operations). */
export interface CompiledMutation {
  readonly patchType: "ApplyConfiguration" | "JSONPatch";
  readonly program: CelProgram;
  /**
   * Kubernetes' "type mismatch" for the expression's constructors whose type names do not match their
   * field paths (struct-type-names.ts): the mutation's error once its expression evaluates.
   */
  readonly typeMismatch?: string;
}

/** The policy's own spec, or one of its autogen copies for pod controllers. */
export interface CompiledMutatingBody {
  readonly constraints: CompiledConstraints;
  readonly matchConditions: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly variables: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly mutations: readonly CompiledMutation[];
  /** The compile error every resource the body matches answers with, if an expression did not compile. */
  readonly failure: string | undefined;
  /** `spec.reinvocationPolicy: IfNeeded`: run again in the same review when a later policy changed the object. */
  readonly reinvokeIfNeeded: boolean;
  /** `spec.evaluation.mutateExisting.enabled` (the policy's own spec only): what a trigger's existing targets are. */
  readonly existing?: CompiledTargets;
  /** Set on the view the background controller runs (mutate-existing.ts): the trigger is not patched, only its targets. */
  readonly targetsOnly?: boolean;
  /**
   * Kyverno's CLI prints the resource under this body even when the body does not match it: its
   * matchConstraints are more than one plain resource rule (a selector, an exclude, resource names
   * or several rules). See evaluate.ts `cliPrints`.
   */
  readonly printedUnmatched: boolean;
}

/**
 * The targets of a mutate-existing MutatingPolicy: `spec.targetMatchConstraints` when it names
 * resourceRules, else `spec.matchConstraints` (Kyverno 1.19), and `spec.targetMatchConditions`,
 * which replace the matchConditions when a target is evaluated.
 */
export interface CompiledTargets {
  readonly constraints: CompiledConstraints;
  readonly matchConditions: readonly { readonly name: string; readonly program: CelProgram }[];
  /**
   * `spec.targetMatchConstraints.expression` (output `map(string, dyn)`): the targets computed
   * from the trigger, one object or a list's `items`, instead of listing the constraints' resources.
   */
  readonly expression?: CelProgram;
}
