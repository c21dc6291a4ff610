/**
 * Whether a policy value can change under substitution: a string needs `{{` (variables, escapes)
 * or `$(` (references); maps are checked key by key, lists item by item. A value with neither
 * anywhere comes back from substitution as it went in.
 */
export function holdsNoVariables(value: unknown): boolean {
  if (typeof value === "string") return !value.includes("{{") && !value.includes("$(");
  if (Array.isArray(value)) return value.every(holdsNoVariables);
  if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) if (!holdsNoVariables(k) || !holdsNoVariables(v)) return false;
  }
  return true;
}
