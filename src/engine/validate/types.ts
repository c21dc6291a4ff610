import type { JsonValue } from "../api/json.js";
import type { RuleResult, RuleStatus } from "../api/rule-result.js";
import type { PatternCache } from "../pattern/index.js";
import type { SubstitutionScope } from "../variables/index.js";

/** What one validate step decided, before it becomes a RuleResult. */
export interface ValidateOutcome {
  readonly status: RuleStatus;
  readonly message: string;
  readonly path?: string;
}

/** A validate rule's pass (`validation rule 'x' passed.`) as an outcome and as a result, made once per rule. */
export interface ValidatePass {
  readonly outcome: ValidateOutcome;
  readonly result: RuleResult;
}

/** Everything a validate step needs: the rule name, the resource in scope, and the variable scope. */
export interface ValidateScope {
  readonly ruleName: string;
  /** The value patterns are matched against: the resource, or a foreach element. */
  readonly target: JsonValue;
  readonly vars: SubstitutionScope;
  /** The policy's compiled patterns. */
  readonly patterns: PatternCache;
  /** The rule's pass, made when it compiled; validators return it as is. */
  readonly passed?: ValidatePass | undefined;
  /**
   * The target is the object a DELETE request removes (not a foreach element): patterns are
   * substituted but not matched, and give no result (Kyverno: "skipping validation on deleted resource").
   */
  readonly deleting?: boolean;
  /** Rule-level per-element values (CLI foreachValues), by variable name. */
  readonly foreachValues?: Readonly<Record<string, readonly JsonValue[]>>;
}
