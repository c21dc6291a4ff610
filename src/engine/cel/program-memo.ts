/**
 * Compiled CEL programs shared by expression: one environment compiles a text once, whatever number
 * of policies repeat it (the corpus's 559 expressions are 172 distinct texts; docs/adr/0014). A
 * program is safe to share: evaluation is synchronous and resets the program's cost meter first, and
 * the same program cannot be evaluated inside itself (that needs a variable whose text refers to
 * itself). Bounded, least recently used first out, so that a server reloading tenants' policies for
 * months does not keep every expression it ever saw.
 */
import type { Result } from "../api/result.js";
import type { CelCompileError, CelCompileOptions, CelProgram } from "./types.js";

/** Distinct compilations kept per environment. */
const MEMO_ENTRIES = 2048;

export class ProgramMemo {
  readonly #entries = new Map<string, Result<CelProgram, CelCompileError>>();
  readonly #limit: number;

  constructor(limit: number = MEMO_ENTRIES) {
    this.#limit = limit;
  }

  /** The program (or compile error) for `expression` under `options`, compiled by `compile` on a miss. */
  get(
    expression: string,
    options: CelCompileOptions,
    compile: () => Result<CelProgram, CelCompileError>,
  ): Result<CelProgram, CelCompileError> {
    const key = memoKey(expression, options);
    const found = this.#entries.get(key);
    if (found !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, found);
      return found;
    }
    const made = compile();
    this.#entries.set(key, made);
    if (this.#entries.size > this.#limit) this.#entries.delete(this.#entries.keys().next().value as string);
    return made;
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** What a compilation depends on besides the environment: the text, the expected type, the extra variables (as a set). */
function memoKey(expression: string, options: CelCompileOptions): string {
  const names = options.variableNames === undefined ? "-" : [...new Set(options.variableNames)].sort().join(",");
  return `${options.expectType ?? "-"}\u0000${names}\u0000${expression}`;
}
