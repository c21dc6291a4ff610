/**
 * `--set key=value` (Kyverno's `apply --set`; options.ts splits `--set a=b,c=d` into two pairs): each pair is split at its `=` (exactly one), key and
 * value trimmed; the value is a string. Kyverno skips keys under `request.object.` (the resource is
 * the file's) and keeps the first of two pairs with the same key; Bylaw does the same and says so.
 * A pair without exactly one `=`, or with an empty key or value, is a usage error.
 */
import { type JsonValue, splitVariableKey } from "../../engine/index.js";

type SetValues = { ok: true; values: Record<string, JsonValue>; warnings: string[] } | { ok: false; error: string };

export function parseSetValues(pairs: readonly string[]): SetValues {
  const values: Record<string, JsonValue> = {};
  const warnings: string[] = [];
  for (const raw of pairs) {
    const parts = raw.trim().split("=");
    if (parts.length !== 2)
      return { ok: false, error: `--set ${JSON.stringify(raw)}: expected key=value with exactly one "="` };
    const key = (parts[0] ?? "").trim();
    const value = (parts[1] ?? "").trim();
    if (key === "" || value === "")
      return { ok: false, error: `--set ${JSON.stringify(raw)}: the key and the value must not be empty` };
    const split = splitVariableKey(key);
    if (!split.ok) return { ok: false, error: `--set ${JSON.stringify(raw)}: ${split.error}` };
    if (key.includes("request.object.")) {
      warnings.push(`--set ${key}: ignored, as in Kyverno: the resource's own fields come from the resource file`);
      continue;
    }
    if (Object.hasOwn(values, key)) {
      warnings.push(
        `--set ${key}: given twice; the first value (${JSON.stringify(values[key])}) is used, as in Kyverno`,
      );
      continue;
    }
    values[key] = value;
  }
  return { ok: true, values, warnings };
}
