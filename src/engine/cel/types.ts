/** The CEL engine's public shapes: compile once, evaluate many times. */
import type { EngineError, Result } from "../api/result.js";
import type { CelServices } from "./kyverno/services.js";

/** Variables an expression may read, as cel-js values (see values.ts `toCel`). */
export type CelActivation = Readonly<Record<string, unknown>>;

/** What a policy evaluation may still spend; shared by all of its expressions. */
export interface CostBudget {
  remaining: number;
  /** Estimated bytes of the values its expressions built so far (value-size.ts); absent is 0. */
  built?: number;
}

export interface CelProgram {
  readonly expression: string;
  /** The checked output type as CEL names it: `bool`, `string`, `list<dyn>`, `dyn`, … */
  readonly outputType: string;
  /**
   * Evaluates with the given variables. Errors are values: an evaluation error, or the cost
   * limit (Kubernetes' text) when the expression or the shared budget runs out.
   */
  evaluate(activation: CelActivation, budget?: CostBudget, services?: CelServices): Result<unknown, CelEvalError>;
}

export interface CelEvalError extends EngineError {
  readonly kind: "cel-eval" | "cel-cost";
}

/** A compile error: the message is cel-go's `ERROR: <input>:line:col: text` with the caret lines. */
export interface CelCompileError extends EngineError {
  readonly kind: "cel-compile";
  /** 1-based line and column of the problem in the expression. */
  readonly line: number;
  readonly column: number;
}

/** A variable the environment declares, with its CEL type (`dyn`, `map<string, dyn>`, …). */
export interface CelVariableDecl {
  readonly name: string;
  readonly type: string;
}

export interface CelCompileOptions {
  /** Extra variables beyond the environment's own (e.g. a policy's `variables` names). */
  readonly variableNames?: readonly string[];
  /** The type the expression must have, e.g. `bool` for a validation or a condition. */
  readonly expectType?: string;
}

export interface CelEngine {
  compile(expression: string, options?: CelCompileOptions): Result<CelProgram, CelCompileError>;
  /** Names of the functions the environment declares (for `bylaw cel eval --help` and tests). */
  functionSignatures(): readonly string[];
}

/** Kubernetes' limits (k8s.io/apiserver celconfig): cost of one expression, and of one policy run. */
export const PER_CALL_COST_LIMIT = 1_000_000;
export const RUNTIME_COST_BUDGET = 10_000_000;
/** cel-go's error when one expression exceeds its limit. */
export const COST_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded";
/** Kubernetes' error when the policy's budget is used up. */
export const BUDGET_EXCEEDED_MESSAGE =
  "validation failed due to running out of cost budget, no further validation rules will be run";
