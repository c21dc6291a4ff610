/**
 * Reading `patchesJson6902`. Kyverno turns the string into JSON with sigs.k8s.io/yaml (go-yaml v2
 * rules, so `yes`/`on` are booleans) and decodes it with evanphx/json-patch `DecodePatch`.
 * Unknown fields in an operation are ignored, as evanphx does.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { err, ok, type Result } from "../../api/result.js";
import { parseGoYaml } from "../../jmespath/functions/kyverno/go-yaml.js";
import { FIELD, JSON_PATCH_OP_NAMES, type JsonPatchOp, type JsonPatchOpName } from "./types.js";
import { jsonTypeName, preview } from "./json-values.js";

const KIND = "json-patch-parse";

/** The policy's patch text, YAML or JSON. */
export function parseJsonPatch(text: string): Result<JsonPatchOp[]> {
  const parsed = parseGoYaml(text);
  if (!parsed.ok) return err(KIND, `${FIELD}: the patch is not valid YAML or JSON: ${parsed.error}`);
  return parseJsonPatchValue(parsed.value);
}

/** An already-decoded list of operations. */
export function parseJsonPatchValue(value: JsonValue): Result<JsonPatchOp[]> {
  if (!Array.isArray(value)) {
    return err(KIND, `${FIELD}: the patch must be a list of operations (got ${jsonTypeName(value)})`);
  }
  const ops: JsonPatchOp[] = [];
  for (const [i, item] of value.entries()) {
    const op = parseOperation(item);
    if (typeof op === "string") return err(KIND, `${FIELD}: operation ${i}: ${op}`);
    ops.push(op);
  }
  return ok(ops);
}

function isOpName(s: string): s is JsonPatchOpName {
  return (JSON_PATCH_OP_NAMES as readonly string[]).includes(s);
}

function field(o: JsonObject, name: string): JsonValue | undefined {
  return Object.hasOwn(o, name) ? o[name] : undefined;
}

/** Checks a pointer field; returns the problem, or undefined when it is fine. */
function pointerProblem(name: string, v: JsonValue | undefined): string | undefined {
  if (v === undefined) return `"${name}" is required`;
  if (typeof v !== "string") return `"${name}" must be a string (got ${jsonTypeName(v)})`;
  if (v !== "" && !v.startsWith("/")) return `"${name}" must start with "/" (got ${JSON.stringify(v)})`;
  return undefined;
}

/** One operation, or the reason it is invalid. */
function parseOperation(item: JsonValue): JsonPatchOp | string {
  if (!isObject(item)) return `must be an object with "op" and "path" (got ${jsonTypeName(item)})`;
  const name = field(item, "op");
  if (name === undefined) return `"op" is required`;
  if (typeof name !== "string") return `"op" must be a string (got ${jsonTypeName(name)})`;
  if (!isOpName(name)) {
    return `"op" must be one of ${JSON_PATCH_OP_NAMES.join(", ")} (got ${preview(name)})`;
  }
  const path = field(item, "path");
  const pathProblem = pointerProblem("path", path);
  if (pathProblem !== undefined) return pathProblem;
  const op: JsonPatchOp = { op: name, path: path as string };
  if (name === "add" || name === "replace" || name === "test") {
    const value = field(item, "value");
    if (value === undefined) return `"value" is required for ${name} (write "value: null" for null)`;
    op.value = value;
  }
  if (name === "move" || name === "copy") {
    const from = field(item, "from");
    const fromProblem = pointerProblem("from", from);
    if (fromProblem !== undefined) return `${fromProblem} for ${name}`;
    op.from = from as string;
  }
  return op;
}

/** Checks an operation built in code the way a parsed one is checked; the problem, if any. */
export function operationProblem(op: JsonPatchOp): string | undefined {
  const checked = parseOperation(op);
  return typeof checked === "string" ? checked : undefined;
}
