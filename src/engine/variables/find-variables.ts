/**
 * Lists the `{{ }}` variables of a policy fragment as Kyverno's policy checks see them (Kyverno
 * `pkg/validation/policy/validate.go`):
 * one scan per string value and map key, so of a nested `{{ a.{{ b }} }}` only `{{ b }}` is listed.
 */
import type { JsonValue } from "../api/json.js";
import { scanVariables } from "./scanner.js";
import type { FoundVariable } from "./types.js";
import { forEachString } from "./walk-strings.js";

/** Every variable in `value` (whose own Kyverno path is `basePath`), in document order. */
export function findVariables(value: JsonValue, basePath = ""): FoundVariable[] {
  const out: FoundVariable[] = [];
  forEachString(value, basePath, (text, path, inKey) => {
    for (const m of scanVariables(text)) {
      out.push({ path, expression: m.expression, text: m.text, shallow: m.shallow, inKey });
    }
  });
  return out;
}
