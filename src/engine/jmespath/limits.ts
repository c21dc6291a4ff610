/**
 * Bounds against hostile expressions and data (the CLI and the webhook evaluate user input).
 * Kyverno has no such bounds; the defaults are far above what real policies need.
 */
export interface JmesPathLimits {
  /** Longest expression `compile` accepts, in characters. */
  readonly maxExpressionLength: number;
  /** Deepest nesting of the syntax tree (and of JSON literals inside it). */
  readonly maxDepth: number;
  /** Interpreter steps per `search`: one per node visited and per array element produced. */
  readonly maxSteps: number;
  /** Longest string a built-in function may produce (`join`, `to_string`) or any function return. */
  readonly maxStringLength: number;
}

export const DEFAULT_LIMITS: JmesPathLimits = {
  maxExpressionLength: 65_536,
  maxDepth: 256,
  maxSteps: 10_000_000,
  maxStringLength: 8_388_608,
};

export function resolveLimits(overrides: Partial<JmesPathLimits> | undefined): JmesPathLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
