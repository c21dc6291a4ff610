import type { JsonValue } from "../api/json.js";
import type { Result } from "../api/result.js";

/** One condition operator: the key and value have already had their variables substituted. */
export type OperatorFn = (key: JsonValue, value: JsonValue) => boolean;

/** Resolves `{{ }}` variables in a condition key or value (supplied by the caller). */
export type Substitute = (v: JsonValue) => Result<JsonValue>;

/** A substitute that is given the caller's context (its variable scope) with each value. */
export type SubstituteIn<C> = (v: JsonValue, context: C) => Result<JsonValue>;

/** Where the conditions sit; only changes the wording of parse errors, as in Kyverno. */
export type ConditionsContext = "preconditions" | "deny conditions";

export interface EvaluateOptions {
  /** Default "preconditions". */
  readonly context?: ConditionsContext;
}

export interface ConditionEvaluation {
  /** Whether the conditions hold (for deny conditions: whether the resource is denied). */
  readonly met: boolean;
  /**
   * The non-empty `message` of each condition that decided the outcome, in Kyverno's order:
   * when not met, every failed `any` condition and the first failed `all` condition (legacy
   * list: the failed condition); when met, the first passing `any` condition and every `all`
   * condition (legacy list: every condition).
   */
  readonly messages: readonly string[];
  /**
   * `messages` joined exactly as Kyverno joins them: "; " for `{any, all}`, ";" for a met legacy
   * list; a failed legacy list gives its one condition's message. Callers build
   * "preconditions not met; <message>" and the deny failure text from this.
   */
  readonly message: string;
}
