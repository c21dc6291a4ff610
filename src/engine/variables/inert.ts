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

/**
 * Whether no string value or map key of `value` holds `{{`: the `{{ }}` pass (without `$( )`
 * references) returns such a value as it is. Used on values a variable gave, which are walked again.
 */
export function holdsNoBraces(value: unknown): boolean {
  if (typeof value === "string") return !value.includes("{{");
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!holdsNoBraces(value[i])) return false;
    return true;
  }
  if (typeof value === "object" && value !== null) {
    for (const k of Object.keys(value))
      if (k.includes("{{") || !holdsNoBraces((value as Record<string, unknown>)[k])) return false;
  }
  return true;
}
