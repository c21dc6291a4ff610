/**
 * Compiled patterns, per policy: the policy's own pattern objects, compiled once. A pattern with
 * no variables comes back from substitution as the same object each time and is looked up here; a
 * substituted pattern is a new object, compiled for that evaluation only and not stored here
 * (validate-pattern.ts), since per-request keys would stay alive through young-generation GCs.
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
