/**
 * Kyverno's `SubstituteAll`: first the `$( )` references of the whole fragment, then the `{{ }}`
 * variables of every string value and map key. A map or list a variable gives is data: its strings
 * are not substituted again (Kyverno's traversal walks into it; known-gaps.tsv). The result may
 * share unchanged parts with the input and with the context data: treat it as read-only.
 */
import type { JsonValue } from "../api/json.js";
import type { Result } from "../api/result.js";
import { substituteReferences } from "./references.js";
import { resolveVariable, SUBSTITUTION_ERROR } from "./resolve-variable.js";
import { substituteText } from "./substitute-text.js";
import type { SubstitutionScope } from "./types.js";
import { walkStrings } from "./walk-strings.js";

/** Substitutes a whole document or fragment: references, then variables in keys and values, recursively. */
export function substituteAll(value: JsonValue, scope: SubstitutionScope): Result<JsonValue> {
  if (typeof value === "object" && value !== null) {
    const unchanged = scope.cache.unchanged(value);
    if (unchanged !== undefined) return unchanged;
  }
  const basePath = scope.basePath ?? "";
  // The common case, a string that is one variable and holds no reference, goes straight to the
  // variable. The policy's own strings are found among the templates scanned at load, without
  // scanning them again.
  if (typeof value === "string") {
    const template =
      scope.cache.pinnedTemplate(value) ?? (value.includes("{{") ? scope.cache.template(value) : undefined);
    if (template !== undefined && template.whole !== undefined && !template.references)
      return template.variable !== undefined
        ? template.variable.resolve(basePath, scope)
        : resolveVariable(template.whole, basePath, scope);
  }
  const referenced = substituteReferences(value, basePath);
  if (!referenced.ok) return referenced;
  return walkStrings(
    referenced.value,
    basePath,
    (text, path) => substituteText(text, path, scope),
    SUBSTITUTION_ERROR,
    {
      revisit: false,
    },
  );
}

/** Substitutes one string; a string that is exactly one variable gives the variable's typed value. */
export function substituteString(text: string, scope: SubstitutionScope): Result<JsonValue> {
  return substituteAll(text, scope);
}
