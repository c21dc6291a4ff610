/**
 * Kyverno's `SubstituteAll`: first the `$( )` references of the whole fragment, then the `{{ }}`
 * variables of every string value and map key. The result may share unchanged parts with the input
 * and with the context data: treat it as read-only.
 */
import type { JsonValue } from "../api/json.js";
import type { Result } from "../api/result.js";
import { substituteReferences } from "./references.js";
import { resolveVariable, SUBSTITUTION_ERROR } from "./resolve-variable.js";
import { substituteText } from "./substitute-text.js";
import type { SubstitutionScope } from "./types.js";
import { walkStrings } from "./walk-strings.js";
import { holdsNoBraces } from "./inert.js";

/** Substitutes a whole document or fragment: references, then variables in keys and values, recursively. */
export function substituteAll(value: JsonValue, scope: SubstitutionScope): Result<JsonValue> {
  if (typeof value === "object" && value !== null) {
    const unchanged = scope.cache.unchanged(value);
    if (unchanged !== undefined) return unchanged;
  }
  const basePath = scope.basePath ?? "";
  // The common case, a string that is one variable and holds no reference, goes straight to the
  // variable; a map or list it gives is then walked, as the general path does. The policy's own
  // strings are found among the templates scanned at load, without scanning them again.
  if (typeof value === "string") {
    const template =
      scope.cache.pinnedTemplate(value) ?? (value.includes("{{") ? scope.cache.template(value) : undefined);
    if (template !== undefined && template.whole !== undefined && !template.references) {
      const r =
        template.variable !== undefined
          ? template.variable.resolve(basePath, scope)
          : resolveVariable(template.whole, basePath, scope);
      if (!r.ok || typeof r.value !== "object" || r.value === null || holdsNoBraces(r.value)) return r;
      return walkStrings(r.value, basePath, (text, path) => substituteText(text, path, scope), SUBSTITUTION_ERROR, 1);
    }
  }
  const referenced = substituteReferences(value, basePath);
  if (!referenced.ok) return referenced;
  return walkStrings(referenced.value, basePath, (text, path) => substituteText(text, path, scope), SUBSTITUTION_ERROR);
}

/** Substitutes one string; a string that is exactly one variable gives the variable's typed value. */
export function substituteString(text: string, scope: SubstitutionScope): Result<JsonValue> {
  return substituteAll(text, scope);
}
