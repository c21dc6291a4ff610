/** Shapes shared by the `{{ }}` substitution and `$( )` reference code. */
import type { JsonObject, JsonValue } from "../api/json.js";
import type { Operation } from "../api/resource.js";
import type { FunctionContext, JmesPathEngine } from "../jmespath/types.js";
import type { ExpressionCache } from "./expression-cache.js";
import type { TemplateTree } from "./template-tree.js";
import type { WholeVariable } from "./whole-variable.js";
import type { DeferredFailure } from "./deferred-failures.js";
import type { ConditionEvaluation } from "../conditions/types.js";
import type { Result } from "../api/result.js";

/** Everything one substitution needs: the JSON context, the interpreter, and the policy's cache. */
export interface SubstitutionScope {
  /** The JSON context: `{ request: {...}, images, element, elementIndex, <context entry names>… }`. */
  readonly data: JsonObject;
  readonly jmespath: JmesPathEngine;
  readonly fnctx: FunctionContext;
  readonly cache: ExpressionCache;
  /** On DELETE every `request.object` in a variable reads `request.oldObject`. Defaults to `data.request.operation`. */
  readonly operation?: Operation;
  /** `{{@}}` expands to `target.<path>` instead of `request.object.<path>`. Defaults to "`target` is in data". */
  readonly target?: boolean;
  /**
   * Kyverno's path of the value being substituted inside the document Kyverno substitutes
   * (e.g. `/mutate/patchStrategicMerge` when Kyverno substitutes a whole rule). Used in error
   * messages, for `{{@}}` and for `$( )` references. Defaults to "" (the value is the document).
   */
  readonly basePath?: string;
  /** The namespace of the policy being evaluated ("" or absent: a ClusterPolicy), for context sources. */
  readonly policyNamespace?: string;
  /** CLI foreach values: each foreach element sets these keys to the list's value at its index. */
  readonly foreachValues?: Readonly<Record<string, readonly JsonValue[]>>;
  /** Context entries that failed to load: a query naming one fails with its error (deferred-failures.ts). */
  readonly deferred?: readonly DeferredFailure[];
  /**
   * The request's shared condition outcomes (PreparedRequest `sharedConditions`): used only while
   * this scope reads exactly their `data` (context/shared-conditions.ts).
   */
  readonly shared?: SharedConditions;
}

/**
 * The outcomes of conditions (preconditions, deny conditions) run on one data object, the request's
 * base context, by their text: two rules of one request that read that object and hold the same
 * conditions (the same precondition repeated by every policy of a set, or copies of a policy) share
 * one run. Kept by the prepared request, so it lives exactly as long as the request.
 */
export interface SharedConditions {
  readonly data: JsonObject;
  /** The operation the rules' variables see (SubstitutionScope `operation`). */
  readonly operation: Operation;
  readonly outcomes: Map<string, Result<ConditionEvaluation>>;
}

/** One `{{ … }}` found by a scan, with Kyverno's regex semantics. */
export interface VariableMatch {
  /** Index of the opening `{{`. */
  readonly start: number;
  /** Index just after the closing `}}`. */
  readonly end: number;
  /** The variable as written, `{{ … }}`. */
  readonly text: string;
  /** The JMESPath expression: the inner text, trimmed, without the shallow marker. */
  readonly expression: string;
  /** Written `{{- … }}`: substitute once, never expand `{{` in the result. */
  readonly shallow: boolean;
}

/** A string scanned once: its first-pass variables, so evaluation never re-scans the policy text. */
export interface Template {
  readonly source: string;
  readonly matches: readonly VariableMatch[];
  /** True when the string needs no work at all: no variables and no `\{{` escapes. */
  readonly literal: boolean;
  /** The string holds `$(`: `substituteAll` must look for references before its variables. */
  readonly references: boolean;
  /** The expression, when the whole string is one variable: it takes that variable's typed value. */
  readonly whole?: string;
  /** The same variable prepared to resolve without rewriting or looking up its query again; absent for `{{@}}`. */
  readonly variable?: WholeVariable;
  /** Its variables as its text nests them (template-tree.ts); absent when `literal` or `variable` says all. */
  readonly tree?: TemplateTree;
}
