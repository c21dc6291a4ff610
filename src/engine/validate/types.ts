import type { JsonObject, JsonValue } from "../api/json.js";
import type { RuleStatus } from "../api/rule-result.js";
import type { PatternCache } from "../pattern/index.js";
import type { SubstitutionScope } from "../variables/index.js";

/** What one validate step decided, before it becomes a RuleResult. */
export interface ValidateOutcome {
  readonly status: RuleStatus;
  readonly message: string;
  readonly path?: string;
}

/** Everything a validate step needs: the rule name, the resource in scope, and the variable scope. */
export interface ValidateScope {
  readonly ruleName: string;
  /** The value patterns are matched against: the resource, or a foreach element. */
  readonly target: JsonValue;
  readonly vars: SubstitutionScope;
  /** The policy's compiled patterns. */
  readonly patterns: PatternCache;
  /** Rule-level per-element values (CLI foreachValues), by variable name. */
  readonly foreachValues?: Readonly<Record<string, readonly JsonValue[]>>;
}

export type ContextData = JsonObject;
