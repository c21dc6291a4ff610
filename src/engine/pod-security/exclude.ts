/**
 * Exclusions, as Kyverno applies them (`ApplyPodSecurityExclusion` / `exemptExclusions`), one
 * exclusion after the other:
 *
 * 1. The exclusion's own pod is checked with the same level and version:
 *    - without images: the pod with a single container named `fake` (pod-level fields only);
 *    - with images: only the containers whose image matches a wildcard, without pod-level fields.
 * 2. For every field error that pod gets on a check of the control (`controlName`), when
 *    `restrictedField` is unset or equals the field with indexes written `*`, and every forbidden
 *    value matches one of `values` (when set), one field error of the original pod with the same
 *    field pattern is removed (for an exclusion with images, only one of the same container).
 * 3. A check with no field error left passes.
 *
 * Quirks kept: failing results are keyed by check id (a check reported twice by a pinned version
 * becomes one); the removal swaps the last error into the removed slot; a pod-level exclusion's
 * `fake` container can remove one container-level error per control.
 */
import { wildcardMatch } from "../values/wildcard.js";
import type { CheckRun } from "./check-types.js";
import { CONTROL_CHECK_IDS } from "./controls.js";
import { runChecks, type ScheduledCheck } from "./evaluate.js";
import { extractBadValues } from "./go-format.js";
import { containerName, matchingContainersPod, podLevelPod } from "./pod-spec.js";
import { CONTAINER_LISTS, type ContainerList } from "./read.js";
import type { PodSecurityExclude, PodView, PssFieldError } from "./types.js";

interface ParsedField {
  /** The field with every run of digits written `*`. */
  readonly pattern: string;
  /** Set for a container field when the exclusion names images. */
  readonly container?: { readonly list: ContainerList; readonly index: number };
}

/** Kyverno's `parseField` (for exclusions with images) or its index-to-`*` rewrite (without). */
function parseField(field: string, containerLevel: boolean): ParsedField {
  const pattern = field.replace(/\d+/g, "*");
  if (!containerLevel) return { pattern };
  const second = field.match(/[a-zA-Z]+/g)?.[1];
  const list = CONTAINER_LISTS.find((l) => l === second);
  if (list === undefined) return { pattern };
  return { pattern, container: { list, index: Number(/\d+/.exec(field)?.[0] ?? "0") } };
}

function removeAt(errors: PssFieldError[], i: number): void {
  const last = errors.pop();
  if (last !== undefined && i < errors.length) errors[i] = last;
}

function valuesMatch(exclude: PodSecurityExclude, error: PssFieldError): boolean {
  const values = exclude.values ?? [];
  if (values.length === 0) return true;
  return extractBadValues(error.badValue).every((v) => values.some((p) => wildcardMatch(p, v)));
}

function exempt(
  defaults: readonly CheckRun[],
  excluded: readonly CheckRun[],
  exclude: PodSecurityExclude,
  pod: PodView,
  matching: PodView | undefined,
): CheckRun[] {
  const byId = new Map<string, CheckRun>();
  for (const r of defaults) byId.set(r.id, r);
  const ids = CONTROL_CHECK_IDS[exclude.controlName] ?? [];
  const containerLevel = matching !== undefined;
  const restrictedField = exclude.restrictedField ?? "";
  for (const run of excluded) {
    if (!ids.includes(run.id)) continue;
    for (const error of run.errors) {
      const ex = parseField(error.field, containerLevel);
      if (restrictedField !== "" && ex.pattern !== restrictedField) continue;
      if (!valuesMatch(exclude, error)) continue;
      const target = byId.get(run.id);
      if (target === undefined) continue;
      const exContainer =
        ex.container && matching ? containerName(matching, ex.container.list, ex.container.index) : "";
      const at = target.errors.findIndex((e) => {
        const d = parseField(e.field, containerLevel);
        if (d.pattern !== ex.pattern) return false;
        return d.container === undefined || containerName(pod, d.container.list, d.container.index) === exContainer;
      });
      if (at >= 0) removeAt(target.errors, at);
      if (target.errors.length === 0) byId.delete(run.id);
    }
  }
  return [...byId.values()];
}

/**
 * Applies `excludes` in order to the failing `results` of `pod`; returns the checks still failing.
 * An exclusion's pod is checked only on the checks it can exempt: those of its control that still
 * fail (`exempt` reads no other run of it); with none, the exclusion only keys the results by id.
 */
export function applyExclusions(
  schedule: readonly ScheduledCheck[],
  excludes: readonly PodSecurityExclude[],
  results: readonly CheckRun[],
  pod: PodView,
): CheckRun[] {
  let current = [...results];
  for (const exclude of excludes) {
    const ids = CONTROL_CHECK_IDS[exclude.controlName] ?? [];
    const relevant = schedule.filter((c) => ids.includes(c.id) && current.some((r) => r.id === c.id));
    if (relevant.length === 0) {
      current = exempt(current, [], exclude, pod, undefined);
      continue;
    }
    const images = exclude.images ?? [];
    const matching = images.length > 0 ? matchingContainersPod(pod, images) : undefined;
    const excluded = runChecks(relevant, matching ?? podLevelPod(pod));
    current = exempt(current, excluded, exclude, pod, matching);
  }
  return current;
}
