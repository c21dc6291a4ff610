/**
 * Lists in a strategic merge, as kustomize's kyaml `merge2` merges them with
 * `ListIncreaseDirection: Prepend` (Kyverno's setting):
 *
 * - no `merge` strategy (atomic, `replace`, unknown field, custom resource): the patch list replaces
 *   the base list, verbatim;
 * - lists of maps with merge keys: elements pair up by their keys. The result lists **every element
 *   the patch names first, in patch order** (merged with its base element when there is one), then
 *   the base elements the patch did not name, in base order. So a patch naming an existing container
 *   moves it to the front (kustomize #3912/#5904; the reason Kyverno runs foreach strategic merges
 *   in reverse). Identity uses `x-kubernetes-list-map-keys` (ports: containerPort + protocol); a key
 *   absent on one side matches anything. A patch element without any key is new;
 * - sets of scalars (finalizers): patch values first, then the base values not in the patch, no
 *   duplicates.
 *
 * Directives: a `{$patch: replace}` element makes the list the other patch elements, `{$patch:
 * delete}` removes the list, `{$patch: merge}` is the default. An element's `$patch: delete` removes
 * its base element. An element's `$patch: replace` leaves a matching base element as it was (kyaml's
 * Prepend merge loses the replacement: kustomize #6146); an unmatched one is added without it.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { ok, type Result } from "../../api/result.js";
import { isListDirective, readPatchDirective } from "./directives.js";
import { ABSENT, elementPath, type MergeContext, type Merged, own, scalarText } from "./merge-support.js";
import { mergeMap, mergeValue } from "./merge-value.js";
import type { FieldSchema, ListSchema } from "./types.js";

export function mergeList(
  base: JsonValue[] | undefined,
  patch: JsonValue[],
  field: FieldSchema | undefined,
  path: string,
  ctx: MergeContext,
): Result<Merged> {
  const list = field?.list;
  if (list === undefined || !list.merge) return ok(patch);
  const directiveAt = patch.findIndex(isListDirective);
  let from = base;
  let elements = patch;
  if (directiveAt >= 0) {
    const directive = readPatchDirective(patch[directiveAt] as JsonObject, path);
    if (!directive.ok) return directive;
    if (directive.value === "delete") return ok(ABSENT);
    if (directive.value === "replace") from = undefined;
    elements = patch.filter((el) => !isListDirective(el));
  }
  if (list.keys.length === 0) return ok(mergeScalarSet(from ?? [], elements));
  return mergeKeyed(from ?? [], elements, list, path, ctx);
}

function mergeScalarSet(base: readonly JsonValue[], patch: readonly JsonValue[]): JsonValue[] {
  const seen = new Set<string>();
  const out: JsonValue[] = [];
  for (const el of [...patch.filter((v) => v !== null), ...base]) {
    const id = typeof el === "object" && el !== null ? `json:${JSON.stringify(el)}` : `text:${scalarText(el)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(el);
  }
  return out;
}

/** One result position: a patch element, a base element, or both paired. */
interface Slot {
  readonly patch?: number;
  readonly base?: number;
}

function mergeKeyed(
  base: readonly JsonValue[],
  patch: readonly JsonValue[],
  list: ListSchema,
  path: string,
  ctx: MergeContext,
): Result<Merged> {
  const tupleOf = (el: JsonValue): string[] | undefined => {
    if (!isObject(el)) return undefined;
    const t = list.keys.map((k) => scalarText(own(el, k)));
    return t.every((v) => v === "") ? undefined : t;
  };
  const baseTuples = base.map(tupleOf);
  const consumed = new Set<number>();
  const emitted: string[][] = [];
  const slots: Slot[] = [];
  patch.forEach((el, i) => {
    if (el === null) return;
    const t = tupleOf(el);
    if (t === undefined) {
      slots.push({ patch: i });
      return;
    }
    if (emitted.some((e) => sameTuple(e, t))) return;
    emitted.push(t);
    const j = baseTuples.findIndex((b, bi) => b !== undefined && !consumed.has(bi) && tuplesMatch(t, b));
    if (j < 0) {
      slots.push({ patch: i });
      return;
    }
    consumed.add(j);
    slots.push({ patch: i, base: j });
  });
  baseTuples.forEach((t, j) => {
    if (consumed.has(j)) return;
    if (t !== undefined) {
      if (emitted.some((e) => sameTuple(e, t))) return;
      emitted.push(t);
    }
    slots.push({ base: j });
  });

  const elementField: FieldSchema = {
    retainKeys: list.retainKeys,
    ...(list.items === undefined ? {} : { node: list.items }),
  };
  const out: JsonValue[] = [];
  for (const slot of slots) {
    const b = slot.base === undefined ? undefined : base[slot.base];
    if (slot.patch === undefined) {
      out.push(b as JsonValue);
      continue;
    }
    const p = patch[slot.patch] as JsonValue;
    const where = elementPath(path, label(p, list, slot.patch));
    const merged = mergeElement(b, p, elementField, where, ctx);
    if (!merged.ok) return merged;
    if (merged.value === ABSENT || (isObject(merged.value) && Object.keys(merged.value).length === 0)) continue;
    out.push(merged.value);
  }
  return ok(out);
}

function mergeElement(
  base: JsonValue | undefined,
  patch: JsonValue,
  field: FieldSchema,
  path: string,
  ctx: MergeContext,
): Result<Merged> {
  if (!isObject(patch) || !isObject(base)) return mergeValue(base, patch, field, path, ctx);
  const directive = readPatchDirective(patch, path);
  if (!directive.ok) return directive;
  if (directive.value === "replace") return ok(base);
  return mergeMap(base, patch, field, path, ctx);
}

function sameTuple(a: readonly string[], b: readonly string[]): boolean {
  return a.every((v, i) => v === b[i]);
}

/** Keys agree wherever both elements have them (kyaml falls back to the keys an element has). */
function tuplesMatch(a: readonly string[], b: readonly string[]): boolean {
  let shared = false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? "";
    const y = b[i] ?? "";
    if (x === "" || y === "") continue;
    if (x !== y) return false;
    shared = true;
  }
  return shared;
}

/** `name=nginx`, `containerPort=80,protocol=TCP`, or the patch index for an element without keys. */
function label(el: JsonValue, list: ListSchema, index: number): string {
  if (!isObject(el)) return String(index);
  const parts = list.keys.filter((k) => scalarText(own(el, k)) !== "").map((k) => `${k}=${scalarText(own(el, k))}`);
  return parts.length === 0 ? String(index) : parts.join(",");
}
