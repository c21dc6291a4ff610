/**
 * Nesting-depth checks done without recursion, so hostile input is rejected with a message
 * before any recursive walk (pattern matching, substitution) could exhaust the stack.
 */
import type { JsonValue } from "./json.js";

/** Policies and resources nested deeper than this are refused. The YAML loader uses the same bound. */
export const MAX_DOCUMENT_DEPTH = 1000;

export function exceedsDepth(root: JsonValue | undefined, limit: number = MAX_DOCUMENT_DEPTH): boolean {
  if (typeof root !== "object" || root === null) return false;
  // Two parallel stacks (containers and their depths): no tuple or array of values per object.
  const stack: object[] = [root];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop() as Record<string, unknown> | unknown[];
    const d = depths.pop() as number;
    if (d > limit) return true;
    if (Array.isArray(v)) {
      for (const c of v) {
        if (typeof c === "object" && c !== null) {
          stack.push(c);
          depths.push(d + 1);
        }
      }
    } else {
      for (const k in v) {
        const c = v[k];
        if (typeof c === "object" && c !== null) {
          stack.push(c);
          depths.push(d + 1);
        }
      }
    }
  }
  return false;
}

/** True for the error V8 throws when recursion exhausts the stack. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}
