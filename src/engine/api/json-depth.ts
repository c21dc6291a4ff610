/**
 * Nesting-depth checks done without recursion, so hostile input is rejected with a message
 * before any recursive walk (pattern matching, substitution) could exhaust the stack.
 */
import type { JsonValue } from "./json.js";

/** Policies and resources nested deeper than this are refused. The YAML loader uses the same bound. */
export const MAX_DOCUMENT_DEPTH = 1000;

export function exceedsDepth(root: JsonValue | undefined, limit: number = MAX_DOCUMENT_DEPTH): boolean {
  if (root === undefined) return false;
  const stack: [JsonValue, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [JsonValue, number];
    if (typeof v !== "object" || v === null) continue;
    if (d > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (typeof c === "object" && c !== null) stack.push([c, d + 1]);
  }
  return false;
}

/** True for the error V8 throws when recursion exhausts the stack. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}
