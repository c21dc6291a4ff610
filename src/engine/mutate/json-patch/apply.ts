/**
 * Applying a JSON Patch as Kyverno does: evanphx/json-patch v5 with SupportNegativeIndices,
 * AllowMissingPathOnRemove and EnsurePathExistsOnAdd. Operations apply in order; the first
 * failure stops the patch. The input document is never changed: only the containers along each
 * path are copied, and values taken from the patch are copied before they are inserted.
 */
import type { JsonValue } from "../../api/json.js";
import { MAX_DOCUMENT_DEPTH } from "../../api/json-depth.js";
import { err, ok, type Result } from "../../api/result.js";
import { addAt, getAt, removeAt, replaceAt } from "./leaf.js";
import { cloneJson } from "../../api/json-copy.js";
import { jsonEqual } from "../../api/json-equal.js";
import { jsonTypeName, preview } from "./json-values.js";
import { operationProblem } from "./parse.js";
import { rawPointerTokens, unescapePointerToken } from "./pointer.js";
import { FIELD, type JsonPatchOp } from "./types.js";
import { done, editParent, fail, findParent, isContainer, NOT_FOUND, type Outcome } from "./walk.js";

const KIND = "json-patch-apply";

type Target = { readonly tokens: string[]; readonly raw: string[]; readonly last: string };

function show(pointer: string): string {
  return pointer === "" ? '""' : pointer;
}

function describe(op: JsonPatchOp): string {
  if (op.op === "move" || op.op === "copy") return `${op.op} ${show(op.from ?? "")} to ${show(op.path)}`;
  return `${op.op} ${show(op.path)}`;
}

/**
 * Splits a pointer (already checked). With `rootAsKey`, "" names the key "" of the document,
 * as evanphx resolves "" for remove and for the destination of move and copy.
 */
function target(pointer: string, rootAsKey: boolean): Target | undefined {
  const raw = rawPointerTokens(pointer) ?? [];
  if (raw.length === 0 && rootAsKey) raw.push("");
  const tokens = raw.map(unescapePointerToken);
  const last = tokens[tokens.length - 1];
  return last === undefined ? undefined : { tokens, raw, last };
}

function wholeDocument(value: JsonValue): Outcome<JsonValue> {
  if (!isContainer(value))
    return fail(`the whole document can only be replaced by an object or array (got ${jsonTypeName(value)})`);
  return done(cloneJson(value));
}

function add(doc: JsonValue, path: string, value: JsonValue): Outcome<JsonValue> {
  const t = target(path, false);
  if (t === undefined) return wholeDocument(value);
  return editParent(doc, t.tokens, t.raw, true, (parent) => addAt(parent, t.last, cloneJson(value)));
}

function remove(doc: JsonValue, path: string): Outcome<JsonValue> {
  const t = target(path, true) as Target;
  const result = editParent(doc, t.tokens, t.raw, false, (parent) => removeAt(parent, t.last));
  return !result.ok && result.failure.missing ? done(doc) : result;
}

function replace(doc: JsonValue, path: string, value: JsonValue): Outcome<JsonValue> {
  const t = target(path, false);
  if (t === undefined) return wholeDocument(value);
  return editParent(doc, t.tokens, t.raw, false, (parent) => replaceAt(parent, t.last, cloneJson(value)));
}

/** The value at a pointer; an absent object key is `undefined`. */
function read(doc: JsonValue, t: Target): Outcome<JsonValue | undefined> {
  const parent = findParent(doc, t.tokens);
  return parent.ok ? getAt(parent.value, t.last) : parent;
}

function test(doc: JsonValue, path: string, expected: JsonValue): Outcome<JsonValue> {
  const t = target(path, false);
  let found: JsonValue | undefined = doc;
  if (t !== undefined) {
    const got = read(doc, t);
    if (!got.ok) return got;
    found = got.value;
  }
  // evanphx: an absent key and JSON null both equal a null value, and only that.
  const same =
    found === undefined || found === null || expected === null
      ? (found ?? null) === expected
      : jsonEqual(found, expected);
  if (same) return done(doc);
  return fail(`test failed: the value at ${show(path)} is ${preview(found)}, not ${preview(expected)}`);
}

/** The source value of move and copy; an absent key is an error. */
function source(doc: JsonValue, from: string): Outcome<[Target, JsonValue]> {
  const t = target(from, true) as Target;
  const got = read(doc, t);
  if (!got.ok) return { ok: false, failure: { missing: false, reason: `"from": ${got.failure.reason}` } };
  if (got.value === undefined) return fail(`"from": ${NOT_FOUND}`);
  return done([t, got.value]);
}

function isInside(inner: readonly string[], outer: readonly string[]): boolean {
  return inner.length > outer.length && outer.every((tok, i) => inner[i] === tok);
}

function move(doc: JsonValue, from: string, path: string): Outcome<JsonValue> {
  if (from === "") return fail(`cannot move the whole document`);
  const src = source(doc, from);
  if (!src.ok) return src;
  const [f, value] = src.value;
  const removed = editParent(doc, f.tokens, f.raw, false, (parent) => removeAt(parent, f.last));
  if (!removed.ok) return removed;
  const t = target(path, true) as Target;
  const result = editParent(removed.value, t.tokens, t.raw, false, (parent) => addAt(parent, t.last, value));
  if (!result.ok && isInside(t.tokens, f.tokens)) return fail(`cannot move a value into one of its own children`);
  return result;
}

function copy(doc: JsonValue, from: string, path: string): Outcome<JsonValue> {
  let value = doc;
  if (from !== "") {
    const src = source(doc, from);
    if (!src.ok) return src;
    value = src.value[1];
  }
  const t = target(path, true) as Target;
  return editParent(doc, t.tokens, t.raw, false, (parent) => addAt(parent, t.last, cloneJson(value)));
}

function applyOne(doc: JsonValue, op: JsonPatchOp): Outcome<JsonValue> {
  switch (op.op) {
    case "add":
      return add(doc, op.path, op.value as JsonValue);
    case "remove":
      return remove(doc, op.path);
    case "replace":
      return replace(doc, op.path, op.value as JsonValue);
    case "test":
      return test(doc, op.path, op.value as JsonValue);
    case "move":
      return move(doc, op.from as string, op.path);
    case "copy":
      return copy(doc, op.from as string, op.path);
  }
}

function tooDeep(op: JsonPatchOp): boolean {
  const depth = (p: string | undefined): number => (p === undefined ? 0 : p.split("/").length - 1);
  return Math.max(depth(op.path), depth(op.from)) > MAX_DOCUMENT_DEPTH;
}

/** Applies the operations in order to a copy of `doc`. */
export function applyJsonPatch(doc: JsonValue, ops: readonly JsonPatchOp[]): Result<JsonValue> {
  let current = doc;
  for (const [i, op] of ops.entries()) {
    const problem = operationProblem(op);
    if (problem !== undefined) return err(KIND, `${FIELD}: operation ${i}: ${problem}`);
    if (tooDeep(op))
      return err(KIND, `${FIELD}: operation ${i} (${op.op}): the path is deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    const next = applyOne(current, op);
    if (!next.ok) return err(KIND, `${FIELD}: operation ${i} (${describe(op)}): ${next.failure.reason}`);
    current = next.value;
  }
  return ok(current);
}
