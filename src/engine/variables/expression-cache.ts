/**
 * The compiled expressions and scanned templates of one policy. Entries made while the policy is
 * loaded (`pin`) stay for the policy's life; entries made during evaluation (expressions built by
 * nested variables, `{{@}}` paths, strings read from resources) go to a bounded area that is
 * emptied when full, so a long-running server does not grow without end.
 */
import { JmesPathError, type CompiledExpression, type JmesPathEngine } from "../jmespath/types.js";
import { compileConditions, type CompiledConditions } from "../conditions/compile.js";
import type { ConditionsContext } from "../conditions/types.js";
import { holdsNoVariables } from "./inert.js";
import { compileTemplate } from "./template.js";
import type { Template } from "./types.js";

export type Compiled = { ok: true; value: CompiledExpression } | { ok: false; error: JmesPathError };

interface ExpressionCacheOptions {
  /** How many evaluation-time entries (of each kind) to keep before starting over. Default 2000. */
  readonly maxDynamicEntries?: number;
}

export class ExpressionCache {
  readonly #pinnedExpressions = new Map<string, Compiled>();
  readonly #dynamicExpressions = new Map<string, Compiled>();
  readonly #pinnedTemplates = new Map<string, Template>();
  readonly #dynamicTemplates = new Map<string, Template>();
  readonly #max: number;
  #pinning = false;
  /** Conditions blocks of the policy, compiled on first use, by where they sit (it words parse errors). */
  readonly #conditions: Readonly<Record<ConditionsContext, WeakMap<object, CompiledConditions>>> = {
    preconditions: new WeakMap(),
    "deny conditions": new WeakMap(),
  };
  /** Maps and lists known to hold no `{{`, `$(` or escapes anywhere: substitution returns them as they are. */
  readonly #inert = new WeakMap<object, { readonly ok: true; readonly value: object } | false>();

  constructor(
    readonly jmespath: JmesPathEngine,
    options: ExpressionCacheOptions = {},
  ) {
    this.#max = options.maxDynamicEntries ?? 2000;
  }

  /**
   * For a value that substitution leaves as it is (no `{{` or `$(` anywhere, keys included), the
   * successful result of substituting it, made once per object; undefined when the value holds
   * variables or references. Objects made per request (substituted copies) are checked again,
   * which is no worse than substituting them.
   */
  unchanged<T extends object>(value: T): { readonly ok: true; readonly value: T } | undefined {
    let hit = this.#inert.get(value);
    if (hit === undefined) {
      hit = holdsNoVariables(value) ? Object.freeze({ ok: true as const, value }) : false;
      this.#inert.set(value, hit);
    }
    return hit === false ? undefined : (hit as { readonly ok: true; readonly value: T });
  }

  /** A policy's `preconditions` or deny `conditions` (as written), compiled once. */
  conditions(value: unknown, context: ConditionsContext): CompiledConditions {
    if (typeof value !== "object" || value === null) return compileConditions(value, context);
    const byObject = this.#conditions[context];
    let hit = byObject.get(value);
    if (hit === undefined) {
      hit = compileConditions(value, context);
      byObject.set(value, hit);
    }
    return hit;
  }

  /** Compiles `source` once; a syntax error is remembered too, so it is not re-parsed either. */
  compile(source: string, engine: JmesPathEngine = this.jmespath): Compiled {
    const hit = this.#pinnedExpressions.get(source) ?? this.#dynamicExpressions.get(source);
    if (hit !== undefined) return hit;
    const compiled = compileWith(engine, source);
    this.#store(this.#pinnedExpressions, this.#dynamicExpressions, source, compiled);
    return compiled;
  }

  /** Like `compile`, for callers that evaluate a JMESPath directly: throws the `JmesPathError` on a syntax error. */
  get(source: string): CompiledExpression {
    const compiled = this.compile(source);
    if (!compiled.ok) throw compiled.error;
    return compiled.value;
  }

  /** The first-pass scan of `text`, computed once. */
  template(text: string): Template {
    const hit = this.#pinnedTemplates.get(text) ?? this.#dynamicTemplates.get(text);
    if (hit !== undefined) return hit;
    const template = compileTemplate(text);
    this.#store(this.#pinnedTemplates, this.#dynamicTemplates, text, template);
    return template;
  }

  /** The template of `text` if it was scanned while the policy loaded (its own strings), without scanning it now. */
  pinnedTemplate(text: string): Template | undefined {
    return this.#pinnedTemplates.get(text);
  }

  /** Runs `load` with every entry it creates kept for the cache's life (used at policy load). */
  pin<T>(load: () => T): T {
    const previous = this.#pinning;
    this.#pinning = true;
    try {
      return load();
    } finally {
      this.#pinning = previous;
    }
  }

  /** Number of cached expressions (pinned and dynamic). */
  get expressionCount(): number {
    return this.#pinnedExpressions.size + this.#dynamicExpressions.size;
  }

  #store<V>(pinned: Map<string, V>, dynamic: Map<string, V>, key: string, value: V): void {
    if (this.#pinning) {
      pinned.set(key, value);
      return;
    }
    if (dynamic.size >= this.#max) dynamic.clear();
    dynamic.set(key, value);
  }
}

function compileWith(engine: JmesPathEngine, source: string): Compiled {
  try {
    return { ok: true, value: engine.compile(source) };
  } catch (e) {
    const error =
      e instanceof JmesPathError ? e : new JmesPathError("syntax", e instanceof Error ? e.message : String(e));
    return { ok: false, error };
  }
}
