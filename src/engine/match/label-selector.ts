/**
 * Kubernetes label selectors with Kyverno's wildcard extension (Kyverno
 * `pkg/engine/wildcards/wildcards.go`).
 *
 * `matchLabels` keys and values may hold `*` / `?`. Before matching, each wildcard entry is
 * replaced by the first resource label that fits both key and value; when none fits, the wildcard
 * characters become `0` (so `{"*": "*"}` does not match an empty label set). `matchExpressions`
 * are used as written. An empty selector (`{}`) selects everything, as in Kubernetes.
 */
import type { LabelSelector } from "../api/policy.js";
import { hasWildcard, wildcardMatch } from "../values/wildcard.js";

type SelectorResult = { readonly ok: true; readonly matched: boolean } | { readonly ok: false; readonly error: string };

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why a label key is invalid, or undefined when it is a valid qualified name. */
export function labelKeyProblem(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length > 2) return `label key "${key}" may contain at most one "/"`;
  const name = parts[parts.length - 1] ?? "";
  if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    if (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) {
      return `label key "${key}" has an invalid prefix (it must be a DNS subdomain)`;
    }
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return `label key "${key}" is invalid (name part: at most 63 alphanumeric characters, '-', '_' or '.', starting and ending alphanumeric)`;
  }
  return undefined;
}

/** Why a label value is invalid, or undefined when it is valid. */
export function labelValueProblem(value: string): string | undefined {
  if (value === "") return undefined;
  if (value.length > 63 || !NAME.test(value)) {
    return `label value "${value}" is invalid (at most 63 alphanumeric characters, '-', '_' or '.', starting and ending alphanumeric)`;
  }
  return undefined;
}

/** Replace wildcard entries of matchLabels by the resource label they stand for (see above). */
export function expandMatchLabels(
  matchLabels: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(matchLabels)) {
    if (!hasWildcard(k) && !hasWildcard(v)) {
      out[k] = v;
      continue;
    }
    const found = Object.entries(labels).find(([lk, lv]) => wildcardMatch(k, lk) && wildcardMatch(v, lv));
    if (found) out[found[0]] = found[1];
    else out[zeroWildcards(k)] = zeroWildcards(v);
  }
  return out;
}

function ownValue(labels: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(labels, key) ? labels[key] : undefined;
}

function zeroWildcards(s: string): string {
  return s.replaceAll("*", "0").replaceAll("?", "0");
}

/** Evaluate a selector against a label set, reporting selectors Kubernetes would refuse to build. */
export function evaluateSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): SelectorResult {
  const matchLabels = selector.matchLabels == null ? {} : expandMatchLabels(selector.matchLabels, labels);
  let matched = true;
  for (const [k, v] of Object.entries(matchLabels)) {
    const problem = labelKeyProblem(k) ?? labelValueProblem(v);
    if (problem !== undefined) return { ok: false, error: problem };
    if (ownValue(labels, k) !== v) matched = false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const r = requirementMatches(req.key, req.operator, req.values ?? [], labels);
    if (!r.ok) return r;
    if (!r.matched) matched = false;
  }
  return { ok: true, matched };
}

function requirementMatches(
  key: string,
  operator: string,
  values: readonly string[],
  labels: Readonly<Record<string, string>>,
): SelectorResult {
  const keyProblem = labelKeyProblem(key);
  if (keyProblem !== undefined) return { ok: false, error: keyProblem };
  const value = ownValue(labels, key);
  const has = value !== undefined;
  switch (operator) {
    case "In":
    case "NotIn": {
      if (values.length === 0)
        return { ok: false, error: `operator ${operator} on key "${key}" needs at least one value` };
      for (const v of values) {
        const p = labelValueProblem(v);
        if (p !== undefined) return { ok: false, error: p };
      }
      const inSet = value !== undefined && values.includes(value);
      return { ok: true, matched: operator === "In" ? inSet : !inSet };
    }
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0) return { ok: false, error: `operator ${operator} on key "${key}" must not have values` };
      return { ok: true, matched: operator === "Exists" ? has : !has };
    default:
      return {
        ok: false,
        error: `"${operator}" is not a valid label selector operator (use In, NotIn, Exists or DoesNotExist)`,
      };
  }
}

/** Whether a selector holds wildcards in matchLabels (Kyverno skips its admission checks then). */
export function selectorHasWildcard(selector: LabelSelector): boolean {
  return Object.entries(selector.matchLabels ?? {}).some(([k, v]) => hasWildcard(k) || hasWildcard(v));
}

/** Number of requirements a selector expresses (matchLabels entries plus expressions). */
export function selectorRequirementCount(selector: LabelSelector): number {
  return Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions?.length ?? 0);
}
