/**
 * Kyverno's `SubstituteAll`: first the `$( )` references of the whole fragment, then the `{{ }}`
 * variables of every string value and map key. The result may share unchanged parts with the input
 * and with the context data: treat it as read-only.
 */
import type { JsonValue } from "../api/json.js";
import type { Result } from "../api/result.js";
import { substituteReferences } from "./references.js";
import { SUBSTITUTION_ERROR } from "./resolve-variable.js";
import { substituteText } from "./substitute-text.js";
import type { SubstitutionScope } from "./types.js";
import { walkStrings } from "./walk-strings.js";

/** Substitutes a whole document or fragment: references, then variables in keys and values, recursively. */
export function substituteAll(value: JsonValue, scope: SubstitutionScope): Result<JsonValue> {
  if (typeof value === "object" && value !== null && scope.cache.isInert(value)) return { ok: true, value };
  const basePath = scope.basePath ?? "";
  const referenced = substituteReferences(value, basePath);
  if (!referenced.ok) return referenced;
  return walkStrings(referenced.value, basePath, (text, path) => substituteText(text, path, scope), SUBSTITUTION_ERROR);
}

/** Substitutes one string; a string that is exactly one variable gives the variable's typed value. */
export function substituteString(text: string, scope: SubstitutionScope): Result<JsonValue> {
  return substituteAll(text, scope);
}
