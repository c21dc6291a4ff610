/**
 * `$( )` manifest references (Kyverno `pkg/engine/variables/vars.go`): `$(./../key)` is a path relative to the string's own
 * location in the policy document, `$(/abs/path)` an absolute one; anchors in the document's keys
 * are ignored when comparing. An operator prefix (`$(<./../x)`) returns the operator followed by
 * the value as text; without one the value must be a string. `\$( … )` escapes a reference.
 * References are resolved inside the document being substituted, never in the resource.
 */
import { isObject, type JsonValue } from "../api/json.js";
import { err, ok, type Result } from "../api/result.js";
import { goFormatValue } from "../go/format-value.js";
import { goFormatFixed } from "../go/format-fixed.js";
import { goPathIsAbs, goPathJoin } from "./go-path.js";
import { arrayChildPath, objectChildPath, removeAnchorsFromPath } from "./kyverno-path.js";
import { operatorOf, trimCutset } from "./reference-operator.js";
import { forEachString, walkStrings } from "./walk-strings.js";

const REFERENCE_ERROR = "reference-substitution";

const REFERENCE = /^\$\([^\n][^ ]*\)|[^\\]\$\([^\n][^ ]*\)/g;
const ESCAPED_REFERENCE = /\\\$\([^\n][^ ]*\)/g;

type Lookup = (path: string) => JsonValue;

/** Leaf values and map keys by anchor-free path; for a map's own path, its last key (as Kyverno's walk leaves it). */
function indexDocument(document: JsonValue, basePath: string): Map<string, JsonValue> {
  const index = new Map<string, JsonValue>();
  const visit = (value: JsonValue, path: string): void => {
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, arrayChildPath(path, i)));
    else if (isObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        index.set(removeAnchorsFromPath(path), key);
        visit(child, objectChildPath(path, key));
      }
    } else index.set(removeAnchorsFromPath(path), value);
  };
  visit(document, basePath);
  return index;
}

function resolveReference(reference: string, at: string, lookup: Lookup): Result<JsonValue, string> {
  let path = trimCutset(reference, "$()");
  const op = operatorOf(path);
  path = path.slice(op.length);
  if (path === "") return { ok: false, error: "expected path, found empty reference" };
  const found = lookup(goPathIsAbs(path) ? path : goPathJoin(at, path));
  if (op === "") return { ok: true, value: found };
  if (typeof found === "string") return { ok: true, value: op + found };
  if (typeof found === "number") return { ok: true, value: op + goFormatFixed(found) };
  return { ok: false, error: `incorrect expression: operator ${op} does not match with value ${goFormatValue(found)}` };
}

function substituteIn(text: string, path: string, lookup: Lookup): Result<JsonValue> {
  if (!text.includes("$(")) return ok(text);
  let value = text;
  for (const m of text.matchAll(REFERENCE)) {
    const old = m[0];
    const initial = old.startsWith("$(");
    const reference = initial ? old : old.slice(1);
    const resolved = resolveReference(reference, path, lookup);
    if (!resolved.ok)
      return err(REFERENCE_ERROR, `failed to resolve ${reference} at path ${path}: ${resolved.error}`, path);
    if (resolved.value === null)
      return err(REFERENCE_ERROR, `got nil resolved variable ${reference} at path ${path}: <nil>`, path);
    if (typeof resolved.value !== "string") {
      return err(REFERENCE_ERROR, `NotResolvedReferenceErr,reference ${reference} not resolved at path ${path}`, path);
    }
    const replacement = (initial ? "" : old.slice(0, 1)) + resolved.value;
    value = value.replace(old, () => replacement);
  }
  for (const m of value.matchAll(ESCAPED_REFERENCE)) value = value.replaceAll(m[0], m[0].slice(1));
  return ok(value);
}

function hasReference(value: JsonValue): boolean {
  let found = false;
  forEachString(value, "", (text) => {
    found = text.includes("$(");
    return !found;
  });
  return found;
}

/**
 * Resolves the `$( )` references in `value`, a policy fragment whose own Kyverno path is
 * `basePath` (default "": `value` is the whole document Kyverno substitutes). Map keys too.
 */
export function substituteReferences(value: JsonValue, basePath = ""): Result<JsonValue> {
  if (typeof value === "string" ? !value.includes("$(") : !hasReference(value)) return ok(value);
  let index: Map<string, JsonValue> | undefined;
  const lookup: Lookup = (path) => {
    index ??= indexDocument(value, basePath);
    return index.get(path) ?? null;
  };
  return walkStrings(value, basePath, (text, path) => substituteIn(text, path, lookup), REFERENCE_ERROR);
}
