/**
 * A JSON Patch applied as Kubernetes applies a MutatingAdmissionPolicy's JSONPatch mutation, and
 * Kyverno a MutatingPolicy's: evanphx/json-patch v4 with no options (negative indices allowed).
 * It differs from the patches of kyverno.io rules (apply.ts, v5 with EnsurePathExistsOnAdd and
 * AllowMissingPathOnRemove) in what a user sees:
 * - every parent of the path must exist and be a map or list: adding `/metadata/labels/x` to an
 *   object without labels is an error, as is removing a key that is not there;
 * - a JSON null counts as absent: below it nothing is found, and `replace` or `copy` of an absent
 *   key sets or copies null rather than failing;
 * - a `test` that fails is no error: the whole patch is dropped and the object left as it was
 *   (`testFailed`);
 * - errors read as evanphx words them ("add operation does not apply: doc is missing path:
 *   "/metadata/labels/x": missing value").
 * The input is never changed: the patch works on a copy.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { cloneJson } from "../../api/json-copy.js";
import { jsonEqual } from "../../api/json-equal.js";
import { setOwn } from "../../api/set-own.js";
import { asEncoded } from "../nil-list.js";
import { unescapePointerToken } from "./pointer.js";

/** One operation as the mutation's CEL value gives it: `from` and `value` may be absent. */
export interface PatchOperationV4 {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: JsonValue;
}

type PatchOutcomeV4 =
  | { readonly ok: true; readonly value: JsonValue; readonly testFailed: boolean }
  | { readonly ok: false; readonly message: string };

type Container = JsonObject | JsonValue[];
class PatchError extends Error {}
class TestFailed extends Error {}

const MISSING = "missing value";
const INVALID_INDEX = "invalid index referenced";

/** Applies the operations in order; the first error stops the patch. */
export function applyJsonPatchV4(doc: JsonValue, ops: readonly PatchOperationV4[]): PatchOutcomeV4 {
  // The patch applies to the object as JSON encodes it: a nil list is null (nil-list.ts).
  let root: JsonValue = asEncoded(doc);
  try {
    for (const op of ops) root = applyOne(root, op);
  } catch (e) {
    if (e instanceof TestFailed) return { ok: true, value: doc, testFailed: true };
    if (e instanceof PatchError) return { ok: false, message: e.message };
    throw e;
  }
  return { ok: true, value: root, testFailed: false };
}

function applyOne(root: JsonValue, op: PatchOperationV4): JsonValue {
  switch (op.op) {
    case "add":
      return add(root, op);
    case "remove":
      return remove(root, op);
    case "replace":
      return replace(root, op);
    case "move":
      return move(root, op);
    case "test":
      return test(root, op);
    case "copy":
      return copy(root, op);
    default:
      throw new PatchError(`Unexpected kind: ${op.op}`);
  }
}

function add(root: JsonValue, op: PatchOperationV4): JsonValue {
  const at = findParent(root, op.path);
  if (at === undefined)
    throw new PatchError(`add operation does not apply: doc is missing path: "${op.path}": ${MISSING}`);
  wrap(`error in add for path: '${op.path}'`, () => addAt(at.parent, at.key, valueOf(op)));
  return root;
}

function remove(root: JsonValue, op: PatchOperationV4): JsonValue {
  const at = findParent(root, op.path);
  if (at === undefined)
    throw new PatchError(`remove operation does not apply: doc is missing path: "${op.path}": ${MISSING}`);
  wrap(`error in remove for path: '${op.path}'`, () => removeAt(at.parent, at.key));
  return root;
}

function replace(root: JsonValue, op: PatchOperationV4): JsonValue {
  if (op.path === "") {
    const value = valueOf(op);
    if (typeof value !== "object" || value === null)
      throw new PatchError("replace operation value must be object or array: %!w(<nil>)");
    return value;
  }
  const at = findParent(root, op.path);
  if (at === undefined)
    throw new PatchError(`replace operation does not apply: doc is missing path: ${op.path}: ${MISSING}`);
  if (Array.isArray(at.parent)) {
    let index: number | undefined;
    try {
      index = arrayIndex(at.parent, at.key);
    } catch {
      index = undefined;
    }
    if (index === undefined)
      throw new PatchError(`replace operation does not apply: doc is missing key: ${op.path}: ${MISSING}`);
    at.parent[index] = valueOf(op);
  } else setOwn(at.parent, at.key, valueOf(op));
  return root;
}

function move(root: JsonValue, op: PatchOperationV4): JsonValue {
  const from = op.from ?? "";
  const src = findParent(root, from);
  if (src === undefined)
    throw new PatchError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrap(`error in move for path: '${src.key}'`, () => getAt(src.parent, src.key));
  wrap(`error in move for path: '${src.key}'`, () => removeAt(src.parent, src.key));
  const dest = findParent(root, op.path);
  if (dest === undefined)
    throw new PatchError(`move operation does not apply: doc is missing destination path: ${op.path}: ${MISSING}`);
  wrap(`error in move for path: '${op.path}'`, () => addAt(dest.parent, dest.key, value));
  return root;
}

function copy(root: JsonValue, op: PatchOperationV4): JsonValue {
  const from = op.from ?? "";
  const src = findParent(root, from);
  if (src === undefined)
    throw new PatchError(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrap(`error in copy for from: '${from}'`, () => getAt(src.parent, src.key));
  const dest = findParent(root, op.path);
  if (dest === undefined)
    throw new PatchError(`copy operation does not apply: doc is missing destination path: ${op.path}: ${MISSING}`);
  wrap("error while adding value during copy", () => addAt(dest.parent, dest.key, cloneJson(value)));
  return root;
}

function test(root: JsonValue, op: PatchOperationV4): JsonValue {
  let found: JsonValue;
  if (op.path === "") found = root;
  else {
    const at = findParent(root, op.path);
    if (at === undefined)
      throw new PatchError(`test operation does not apply: is missing path: ${op.path}: ${MISSING}`);
    found = wrap(`error in test for path: '${op.path}'`, () => getAt(at.parent, at.key));
  }
  // evanphx: an absent or null value passes only an operation without a value; a value (null
  // included) must equal a value that is there.
  const same = found === null ? op.value === undefined : op.value !== undefined && jsonEqual(found, op.value);
  if (!same) throw new TestFailed();
  return root;
}

/** The operation's value; an absent one is JSON null, as a nil value marshals. */
function valueOf(op: PatchOperationV4): JsonValue {
  return op.value === undefined ? null : cloneJson(op.value);
}

/**
 * The container holding the path's last token and that token, or undefined when the path has no
 * `/` or a parent is absent, null, a scalar or a bad index. The text before the first `/` is ignored.
 */
function findParent(root: JsonValue, path: string): { parent: Container; key: string } | undefined {
  const parts = path.split("/");
  if (parts.length < 2 || !isContainer(root)) return undefined;
  let node: Container = root;
  for (const raw of parts.slice(1, -1)) {
    let next: JsonValue;
    try {
      next = getAt(node, unescapePointerToken(raw));
    } catch {
      return undefined;
    }
    if (!isContainer(next)) return undefined;
    node = next;
  }
  return { parent: node, key: unescapePointerToken(parts[parts.length - 1] ?? "") };
}

function isContainer(v: JsonValue | undefined): v is Container {
  return typeof v === "object" && v !== null;
}

/** A map's value (null when absent) or a list's element (an error when the index is bad). */
function getAt(node: Container, key: string): JsonValue {
  if (!Array.isArray(node)) return Object.hasOwn(node, key) ? (node[key] ?? null) : null;
  const idx = atoi(key, (reason) => reason);
  const index = arrayIndex(node, key);
  if (index === undefined) throw new PatchError(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  return node[index] ?? null;
}

function addAt(node: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(node)) return setOwn(node, key, value);
  if (key === "-") {
    node.push(value);
    return;
  }
  const idx = atoi(key, (reason) => `value was not a proper array index: '${key}': ${reason}`);
  const size = node.length + 1;
  if (idx >= size || idx < -size) throw new PatchError(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  node.splice(idx < 0 ? idx + size : idx, 0, value);
}

function removeAt(node: Container, key: string): void {
  if (!Array.isArray(node)) {
    if (!Object.hasOwn(node, key)) throw new PatchError(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete node[key];
    return;
  }
  const idx = atoi(key, (reason) => reason);
  if (idx >= node.length || idx < -node.length)
    throw new PatchError(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  node.splice(idx < 0 ? idx + node.length : idx, 1);
}

/** The position a list index names (negative counts from the end), or undefined when out of range. */
function arrayIndex(node: readonly JsonValue[], key: string): number | undefined {
  const idx = atoi(key, (reason) => reason);
  if (idx >= node.length || idx < -node.length) return undefined;
  return idx < 0 ? idx + node.length : idx;
}

/** The index as Go's strconv.Atoi reads it; `message` words its error. */
function atoi(key: string, message: (reason: string) => string): number {
  if (!/^[+-]?\d+$/.test(key))
    throw new PatchError(message(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`));
  const n = Number(key);
  if (!Number.isSafeInteger(n))
    throw new PatchError(message(`strconv.Atoi: parsing ${JSON.stringify(key)}: value out of range`));
  return n;
}

/** Runs `f`, prefixing its PatchError with `context` (none when empty). */
function wrap<T>(context: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof PatchError && context !== "") throw new PatchError(`${context}: ${e.message}`);
    throw e;
  }
}

/** The operations of a JSONPatch mutation's value (a list of `JSONPatch{…}` as JSON), or why it is not one. */
export function operationsV4(value: JsonValue): PatchOperationV4[] | string {
  if (!Array.isArray(value)) return "a jsonPatch expression must build a list of JSONPatch{…}";
  const ops: PatchOperationV4[] = [];
  for (const item of value) {
    if (!isObject(item)) return "a jsonPatch expression must build a list of JSONPatch{…}";
    const text = (k: string): string => (typeof item[k] === "string" ? item[k] : "");
    const from = text("from");
    ops.push({
      op: text("op"),
      path: text("path"),
      ...(from !== "" ? { from } : {}),
      ...(Object.hasOwn(item, "value") ? { value: item["value"] as JsonValue } : {}),
    });
  }
  return ops;
}
