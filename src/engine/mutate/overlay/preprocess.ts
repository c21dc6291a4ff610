/**
 * Kyverno's anchors in a `patchStrategicMerge` overlay, resolved against the resource before the
 * plain strategic merge (Kyverno `pkg/engine/anchor/*`; website mutate.md "Conditional logic using anchors"):
 *
 * - `(key): pattern` (conditional): the map it sits in applies only when the resource has `key`
 *   and its value matches `pattern` (validate pattern semantics). Outside a list a mismatch skips
 *   the whole patch. In a list of maps the element is tried against every resource element and
 *   becomes one copy per matching element, named after it (`name`), so the merge lands on it.
 * - `<(key): pattern` (global): a mismatch skips the whole patch. In a list, the element only gates:
 *   at least one resource element must match; the element itself adds nothing.
 * - `+(key): value` (add if not present): kept, as `key`, only when the resource lacks `key`.
 *   A conditional or global anchor whose map value holds `+()` keys is not checked (Kyverno's
 *   validateConditionsInternal): it counts as met when the resource has its key, and the value is
 *   patch content, its `+()` fields added where missing.
 * - `=(key)` (equality: absent, or present and matching), `^(key)` (existence: a list with at least
 *   one matching element) and `X(key)` (negation: absent) gate the map like a conditional anchor,
 *   with their validate meaning.
 *
 * The anchors are gone from the returned patch. Maps and lists that only held anchored content are
 * dropped, so a condition that matched nothing leaves nothing to merge.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { setOwn } from "../../api/set-own.js";
import {
  containsCondition,
  isAddIfNotPresentAnchor,
  isEqualityAnchor,
  isExistenceAnchor,
  isGlobalAnchor,
  isNegationAnchor,
  parseAnchor,
  type Anchor,
} from "../../anchors/index.js";
import { matchPattern } from "../../pattern/index.js";

/** Why an overlay does not apply: a conditional or a global anchor did not hold. */
export interface AnchorMismatch {
  readonly kind: "condition" | "global";
  readonly message: string;
}

type Preprocessed =
  { readonly ok: true; readonly patch: JsonValue } | { readonly ok: false; readonly mismatch: AnchorMismatch };

/** Resolves the overlay's anchors against `resource`; a mismatch means the patch does not apply. */
export function preprocessOverlay(overlay: JsonValue, resource: JsonValue | undefined): Preprocessed {
  const out = processValue(overlay, resource, "");
  if ("mismatch" in out) return { ok: false, mismatch: out.mismatch };
  return { ok: true, patch: out.value === DROPPED ? {} : out.value };
}

const DROPPED = Symbol("dropped");
type Processed = { value: JsonValue | typeof DROPPED } | { mismatch: AnchorMismatch };

function processValue(pattern: JsonValue, resource: JsonValue | undefined, path: string): Processed {
  if (isObject(pattern)) return processMap(pattern, isObject(resource) ? resource : undefined, path);
  if (Array.isArray(pattern)) return processList(pattern, Array.isArray(resource) ? resource : undefined, path);
  return { value: pattern };
}

function processMap(pattern: JsonObject, resource: JsonObject | undefined, path: string): Processed {
  const keys = Object.keys(pattern);
  for (const key of keys.filter((k) => containsCondition(parseAnchor(k))).sort()) {
    const anchor = parseAnchor(key);
    if (anchor === undefined) continue;
    const kind = isGlobalAnchor(anchor) ? "global" : "condition";
    const actual = resource === undefined || !Object.hasOwn(resource, anchor.key) ? undefined : resource[anchor.key];
    if (actual === undefined) {
      return {
        mismatch: {
          kind,
          message: `${kind === "global" ? "global" : "conditional"} anchor key ${anchor.key} does not exist in the resource at ${path || "/"}`,
        },
      };
    }
    // Kyverno: a condition whose value holds `+()` keys is not checked; it counts as met, and its
    // value becomes patch content (below), the `+()` fields added where the resource lacks them.
    if (holdsAddAnchors(pattern[key])) continue;
    const outcome = matchPattern(actual, pattern[key] ?? null);
    if (outcome.status !== "pass") {
      return {
        mismatch: {
          kind,
          message: `${kind === "global" ? "global" : "conditional"} anchor ${key} at ${path || "/"} does not match: ${outcome.message}`,
        },
      };
    }
  }
  for (const key of keys.filter((k) => isGateAnchor(parseAnchor(k))).sort()) {
    const outcome = matchPattern(resource ?? {}, { [key]: pattern[key] ?? null });
    if (outcome.status !== "pass")
      return {
        mismatch: { kind: "condition", message: `anchor ${key} at ${path || "/"} does not hold: ${outcome.message}` },
      };
  }
  const out: JsonObject = {};
  let anchored = false;
  for (const key of keys) {
    const value = pattern[key] as JsonValue;
    const anchor = parseAnchor(key);
    if (containsCondition(anchor) && anchor !== undefined && holdsAddAnchors(value)) {
      anchored = true;
      const added = processValue(value, resource?.[anchor.key], `${path}/${anchor.key}`);
      if ("mismatch" in added) return added;
      if (added.value !== DROPPED) setOwn(out, anchor.key, added.value);
      continue;
    }
    if (containsCondition(anchor) || isGateAnchor(anchor)) {
      anchored = true;
      continue;
    }
    if (anchor !== undefined && isAddIfNotPresentAnchor(anchor)) {
      anchored = true;
      if (resource !== undefined && Object.hasOwn(resource, anchor.key) && resource[anchor.key] !== undefined) continue;
      const added = processValue(value, undefined, `${path}/${anchor.key}`);
      if ("mismatch" in added) return added;
      if (added.value !== DROPPED) setOwn(out, anchor.key, added.value);
      continue;
    }
    const child = processValue(value, resource?.[key], `${path}/${key}`);
    if ("mismatch" in child) return child;
    if (child.value === DROPPED) {
      anchored = true;
      continue;
    }
    setOwn(out, key, child.value);
  }
  if (anchored && Object.keys(out).length === 0) return { value: DROPPED };
  return { value: out };
}

/** A map with at least one `+(key)` of its own (Kyverno's handleAddIfNotPresentAnchor count > 0). */
function holdsAddAnchors(v: JsonValue | undefined): boolean {
  return isObject(v) && Object.keys(v).some((k) => isAddIfNotPresentAnchor(parseAnchor(k)));
}

/** Equality, existence and negation anchors: checks with their validate meaning, never patch content. */
function isGateAnchor(a: Anchor | undefined): boolean {
  return isEqualityAnchor(a) || isExistenceAnchor(a) || isNegationAnchor(a);
}

/** True when a map (at any depth) holds an anchor that decides whether it applies. */
function hasConditionAnchors(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasConditionAnchors);
  if (!isObject(v)) return false;
  return Object.keys(v).some((k) => {
    const a = parseAnchor(k);
    return containsCondition(a) || isGateAnchor(a) || hasConditionAnchors(v[k] as JsonValue);
  });
}

function hasGlobalAnchors(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasGlobalAnchors);
  if (!isObject(v)) return false;
  return Object.keys(v).some((k) => isGlobalAnchor(parseAnchor(k)) || hasGlobalAnchors(v[k] as JsonValue));
}

/** `resource` is undefined when the resource has no list there (absent, or not a list). */
function processList(
  pattern: readonly JsonValue[],
  resource: readonly JsonValue[] | undefined,
  path: string,
): Processed {
  if (pattern.length === 0 || !isObject(pattern[0])) return { value: [...pattern] };
  const kept: JsonValue[] = [];
  const expanded: JsonValue[] = [];
  let anchored = false;
  for (const element of pattern) {
    if (!hasConditionAnchors(element)) {
      const plain = processValue(element, undefined, path);
      if ("mismatch" in plain) return plain;
      if (plain.value !== DROPPED) kept.push(plain.value);
      continue;
    }
    anchored = true;
    const gating = hasGlobalAnchors(element);
    let globalPassed = false;
    let globalMismatch: AnchorMismatch | undefined;
    // Kyverno: with no such list in the resource, the element is checked against nothing; a global
    // anchor in it then fails, which skips the whole patch.
    if (resource === undefined && gating) {
      const alone = processValue(element, undefined, path);
      if ("mismatch" in alone && alone.mismatch.kind === "global") return alone;
    }
    (resource ?? []).forEach((resourceElement, i) => {
      const one = processValue(element, resourceElement, `${path}/${i}`);
      if ("mismatch" in one) {
        if (one.mismatch.kind === "global") globalMismatch = one.mismatch;
        return;
      }
      if (gating) {
        globalPassed = true;
        return;
      }
      const name = isObject(resourceElement) ? resourceElement["name"] : undefined;
      if (name === undefined || name === null || one.value === DROPPED || !isObject(one.value)) return;
      const copy: JsonObject = { ...one.value };
      setOwn(copy, "name", name);
      expanded.push(copy);
    });
    if (!globalPassed && globalMismatch !== undefined) return { mismatch: globalMismatch };
  }
  const out = [...kept, ...expanded];
  if (anchored && out.length === 0) return { value: DROPPED };
  return { value: out };
}
