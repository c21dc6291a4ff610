/**
 * The net change between two documents as a JSON Patch, for the admission webhook's response.
 * rfc6902 `createPatch` does the diffing; arrays are first trimmed of their common start and end
 * (so prepending one container is one `add` at index 0), and arrays too large for its
 * quadratic edit-distance search are compared position by position instead.
 */
import { createPatch, type Operation, type Pointer } from "rfc6902";
import { isObject, type JsonValue } from "../../api/json.js";
import { jsonEqual } from "../../api/json-equal.js";
import { escapePointerToken } from "./pointer.js";
import type { JsonPatchOp } from "./types.js";

/** Largest (rows × columns) edit-distance table rfc6902 is given; beyond, compare by position. */
const MAX_TABLE = 10_000;
/** rfc6902 recurses once per row and column: keep the depth well inside the stack. */
const MAX_SIDES = 1_000;
/**
 * Work allowed for edit-distance searches in one createJsonPatch call, counted per table cell as
 * the average element size plus the row and column lengths; once spent, lists compare by position.
 */
const MAX_WORK = 1_000_000;

type Hook = (input: unknown, output: unknown, ptr: Pointer) => Operation[] | undefined;

/** JSON nodes in a value, counting no further than `limit`. */
function nodeCount(values: readonly JsonValue[], limit: number): number {
  let count = 0;
  const stack: JsonValue[] = [...values];
  while (stack.length > 0 && count < limit) {
    const v = stack.pop() as JsonValue;
    count++;
    if (typeof v === "object" && v !== null)
      for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
  }
  return count;
}

function commonEnds(a: readonly JsonValue[], b: readonly JsonValue[]): [number, number] {
  const limit = Math.min(a.length, b.length);
  let head = 0;
  while (head < limit && jsonEqual(a[head], b[head])) head++;
  let tail = 0;
  while (tail < limit - head && jsonEqual(a[a.length - 1 - tail], b[b.length - 1 - tail])) tail++;
  return [head, tail];
}

/** Ops of a sub-diff rooted at "" moved under `base` (a pointer string). */
function under(base: string, ops: readonly Operation[]): Operation[] {
  return ops.map((o) => ({ ...o, path: base + o.path }));
}

/**
 * Ops from diffing the middle slices (rooted at an array) moved to the full array at `base`,
 * whose middle starts at `offset`. "-" (end of the middle) becomes a numeric index.
 */
function shiftMiddle(base: string, offset: number, startLength: number, ops: readonly Operation[]): Operation[] {
  let length = startLength;
  return ops.map((o) => {
    const rest = o.path.slice(1);
    const cut = rest.indexOf("/");
    const token = cut < 0 ? rest : rest.slice(0, cut);
    const tail = cut < 0 ? "" : rest.slice(cut);
    const index = token === "-" ? length : Number(token);
    if (cut < 0 && o.op === "add") length++;
    if (cut < 0 && o.op === "remove") length--;
    return { ...o, path: `${base}/${offset + index}${tail}` };
  });
}

/** Element by element: diff the shared positions, then remove or add the rest. */
function byPosition(
  hook: Hook,
  base: string,
  offset: number,
  a: readonly JsonValue[],
  b: readonly JsonValue[],
): Operation[] {
  const shared = Math.min(a.length, b.length);
  const ops: Operation[] = [];
  for (let i = 0; i < shared; i++)
    for (const o of under(`${base}/${offset + i}`, createPatch(a[i], b[i], hook))) ops.push(o);
  for (let i = shared; i < a.length; i++) ops.push({ op: "remove", path: `${base}/${offset + shared}` });
  for (let i = shared; i < b.length; i++) ops.push({ op: "add", path: `${base}/${offset + i}`, value: b[i] });
  return ops;
}

/** rfc6902's hook: our handling for arrays, its own (`undefined`) for everything else. */
function makeHook(): Hook {
  let work = MAX_WORK;
  /** Whether rfc6902 may search this pair for the fewest edits; spends the work if so. */
  const affordable = (a: readonly JsonValue[], b: readonly JsonValue[]): boolean => {
    const cells = a.length * b.length;
    if (cells > MAX_TABLE || a.length + b.length > MAX_SIDES || cells > work) return false;
    const average = nodeCount([...a, ...b], work) / Math.max(1, a.length + b.length);
    // Each cell diffs two elements and copies an operation list as long as a row plus a column.
    const cost = cells * (average + a.length + b.length);
    if (cost > work) return false;
    work -= cost;
    return true;
  };
  const hook: Hook = (input, output, ptr) => {
    if (!Array.isArray(input) || !Array.isArray(output)) return undefined;
    const a = input as JsonValue[];
    const b = output as JsonValue[];
    const base = ptr.toString();
    const [head, tail] = commonEnds(a, b);
    if (head === 0 && tail === 0) return affordable(a, b) ? undefined : byPosition(hook, base, 0, a, b);
    const midA = a.slice(head, a.length - tail);
    const midB = b.slice(head, b.length - tail);
    if (midA.length === 0 || midB.length === 0) return byPosition(hook, base, head, midA, midB);
    // The middles differ at both ends, so the nested call decides between rfc6902 and positions.
    return shiftMiddle(base, head, midA.length, createPatch(midA, midB, hook));
  };
  return hook;
}

function toOp(o: Operation): JsonPatchOp {
  switch (o.op) {
    case "add":
    case "replace":
    case "test":
      return { op: o.op, path: o.path, value: o.value as JsonValue };
    case "remove":
      return { op: "remove", path: o.path };
    case "move":
    case "copy":
      return { op: o.op, path: o.path, from: o.from };
  }
}

/**
 * Whole values per top-level key: the fallback when a diff is too big for rfc6902 (its
 * recursion and its `push.apply` of sub-diffs can exceed the stack or the argument limit).
 */
function topLevel(before: JsonValue, after: JsonValue): JsonPatchOp[] {
  if (!isObject(before) || !isObject(after)) return [{ op: "replace", path: "", value: after }];
  const ops: JsonPatchOp[] = [];
  for (const k of Object.keys(before))
    if (!Object.hasOwn(after, k)) ops.push({ op: "remove", path: `/${escapePointerToken(k)}` });
  for (const k of Object.keys(after)) {
    const path = `/${escapePointerToken(k)}`;
    const value = after[k] as JsonValue;
    if (!Object.hasOwn(before, k)) ops.push({ op: "add", path, value });
    else if (!jsonEqual(before[k], value)) ops.push({ op: "replace", path, value });
  }
  return ops;
}

/** Operations that turn `before` into `after` (applied in order, with RFC 6902 semantics). */
export function createJsonPatch(before: JsonValue, after: JsonValue): JsonPatchOp[] {
  try {
    return createPatch(before, after, makeHook()).map(toOp);
  } catch (e) {
    if (e instanceof RangeError) return topLevel(before, after);
    throw e;
  }
}
