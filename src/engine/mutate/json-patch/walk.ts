/**
 * Walking a document to the parent of a pointer's last token, read-only or copy-on-write, with
 * evanphx/json-patch's rules: an intermediate that is absent, null, a scalar or an invalid index
 * is "missing"; with `ensure` (EnsurePathExistsOnAdd) absent or null intermediates are created.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { setOwn } from "../../api/set-own.js";
import { formatPointer, parseGoIndex } from "./pointer.js";
import { jsonTypeName } from "./json-values.js";

export type Container = JsonObject | JsonValue[];

/** Why an operation cannot apply. `missing` failures make `remove` a no-op. */
type Failure = { readonly missing: boolean; readonly reason: string };
export type Outcome<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export const done = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const fail = (reason: string, missing = false): { ok: false; failure: Failure } => ({
  ok: false,
  failure: { missing, reason },
});

export const NOT_FOUND = "the path does not exist in the resource";

/** How far a missing parent may pad an array with nulls (evanphx has no bound; this stops huge allocations). */
const MAX_PADDING = 10_000;

export function isContainer(v: JsonValue | undefined): v is Container {
  return typeof v === "object" && v !== null;
}

/** evanphx `partialArray.get` index: negative counts from the end; undefined if out of range. */
export function arrayPosition(arr: readonly JsonValue[], token: string): number | undefined {
  const idx = parseGoIndex(token);
  if (idx === undefined) return undefined;
  const pos = idx < 0 ? idx + arr.length : idx;
  return pos >= 0 && pos < arr.length ? pos : undefined;
}

/** The child at a token: its value (JSON null included) and where it sits, or undefined. */
function childAt(node: Container, token: string): { value: JsonValue; at: string | number } | undefined {
  if (Array.isArray(node)) {
    const pos = arrayPosition(node, token);
    return pos === undefined ? undefined : { value: node[pos] as JsonValue, at: pos };
  }
  return Object.hasOwn(node, token) ? { value: node[token] as JsonValue, at: token } : undefined;
}

/** A copy of `node` with the child at `at` set to `value`. */
function withChild(node: Container, at: string | number, value: JsonValue): Container {
  if (Array.isArray(node)) {
    const copy = node.slice();
    copy[at as number] = value;
    return copy;
  }
  const copy: JsonObject = { ...node };
  setOwn(copy, at as string, value);
  return copy;
}

function missingBelow(tokens: readonly string[], depth: number, child: JsonValue | undefined): Failure {
  const where = formatPointer(tokens.slice(0, depth + 1));
  const what = child === undefined ? "is missing" : `is ${jsonTypeName(child)}`;
  return { missing: true, reason: `${NOT_FOUND} (${where} ${what})` };
}

/** The container holding the pointer's last token (tokens must not be empty). */
export function findParent(doc: JsonValue, tokens: readonly string[]): Outcome<Container> {
  if (!isContainer(doc))
    return { ok: false, failure: { missing: true, reason: `${NOT_FOUND} (the document is ${jsonTypeName(doc)})` } };
  let node: Container = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const child = childAt(node, tokens[i] as string)?.value;
    if (!isContainer(child)) return { ok: false, failure: missingBelow(tokens, i, child) };
    node = child;
  }
  return done(node);
}

type ParentEdit = (parent: Container) => Outcome<Container>;

/**
 * A copy of `doc` in which the parent of the last token is replaced by `edit(parent)`. Only the
 * containers along the path are copied. `rawTokens` are the tokens as written (for `ensure`).
 */
export function editParent(
  doc: JsonValue,
  tokens: readonly string[],
  rawTokens: readonly string[],
  ensure: boolean,
  edit: ParentEdit,
): Outcome<JsonValue> {
  if (!isContainer(doc))
    return { ok: false, failure: { missing: true, reason: `${NOT_FOUND} (the document is ${jsonTypeName(doc)})` } };
  const descend = (node: Container, i: number): Outcome<Container> => {
    if (i === tokens.length - 1) return edit(node);
    const token = tokens[i] as string;
    const found = childAt(node, token);
    if (isContainer(found?.value)) {
      const below = descend(found.value, i + 1);
      return below.ok ? done(withChild(node, found.at, below.value)) : below;
    }
    if (!ensure) return { ok: false, failure: missingBelow(tokens, i, found?.value) };
    if (found !== undefined && found.value !== null) {
      return fail(
        `cannot add below ${formatPointer(tokens.slice(0, i + 1))}: it is ${jsonTypeName(found.value)}, not an object or array`,
      );
    }
    const created = createParent(node, tokens, rawTokens, i);
    if (!created.ok) return created;
    const [parent, at, fresh] = created.value;
    const below = descend(fresh, i + 1);
    if (!below.ok) return below;
    (parent as Record<string | number, JsonValue>)[at] = below.value;
    return done(parent);
  };
  return descend(doc, 0);
}

/**
 * evanphx `ensurePathExists` for one absent or null intermediate: the new container is an array
 * when the next token is an index or "-" (padded with nulls up to that index), else an object.
 * In an array it is inserted (not set) at the token, after padding the array with nulls.
 * Returns a fresh copy of `node` holding the new container, its position, and the container.
 */
function createParent(
  node: Container,
  tokens: readonly string[],
  rawTokens: readonly string[],
  i: number,
): Outcome<[Container, string | number, Container]> {
  const here = formatPointer(tokens.slice(0, i + 1));
  const nextRaw = rawTokens[i + 1] as string;
  const nextIndex = parseGoIndex(nextRaw);
  let fresh: Container;
  if (nextIndex !== undefined || nextRaw === "-") {
    const pad = nextIndex ?? 0;
    if (pad > MAX_PADDING)
      return fail(
        `cannot create the missing array ${here} padded with ${pad} nulls: at most ${MAX_PADDING} are allowed`,
      );
    if (pad < -1)
      return fail(
        `cannot create the missing array ${here} for index ${pad}: only "-", -1 or an index of 0 or more may follow a missing parent`,
      );
    fresh = new Array<JsonValue>(Math.max(pad, 0)).fill(null);
  } else {
    fresh = {};
  }
  if (!Array.isArray(node)) {
    const token = tokens[i] as string;
    // evanphx creates the key as written, still escaped, so its own lookup then fails.
    if (rawTokens[i] !== token) {
      return fail(
        `${NOT_FOUND} (${here} is missing, and Kyverno cannot create a missing parent whose name needs ~0 or ~1 escaping: add ${here} in an earlier operation)`,
      );
    }
    const copy: JsonObject = { ...node };
    setOwn(copy, token, fresh);
    return done([copy, token, fresh]);
  }
  const idx = parseGoIndex(rawTokens[i] as string);
  if (idx === undefined)
    return fail(`${NOT_FOUND} (${here}: ${JSON.stringify(tokens[i])} is not an index into the array)`);
  if (idx - node.length > MAX_PADDING)
    return fail(
      `cannot pad the array at ${formatPointer(tokens.slice(0, i))} up to index ${idx}: at most ${MAX_PADDING} nulls are allowed`,
    );
  const padded = node.slice();
  while (padded.length < idx) padded.push(null);
  const pos = idx < 0 ? idx + padded.length + 1 : idx;
  if (pos < 0 || pos > padded.length)
    return fail(`${NOT_FOUND} (${here}: index ${idx} is out of range for an array of length ${node.length})`);
  padded.splice(pos, 0, fresh);
  return done([padded, pos, fresh]);
}
