/**
 * Compiled patterns, per policy. A pattern with no variables comes back from substitution as the
 * same object each time, so it is compiled once; a substituted pattern is a new object and is
 * compiled for that evaluation only (the WeakMap lets it go).
 */
import type { JsonValue } from "../api/json.js";
import { compilePattern } from "./match-pattern.js";
import type { CompiledPattern } from "./types.js";

export class PatternCache {
  private readonly compiled = new WeakMap<object, CompiledPattern>();

  get(pattern: JsonValue): CompiledPattern {
    if (typeof pattern !== "object" || pattern === null) return compilePattern(pattern);
    let c = this.compiled.get(pattern);
    if (c === undefined) {
      c = compilePattern(pattern);
      this.compiled.set(pattern, c);
    }
    return c;
  }
}
