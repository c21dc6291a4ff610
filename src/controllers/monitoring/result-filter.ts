/**
 * Which results go to Loki: Policy Reporter's per-target filters (monitoring.md §4.1), pure, compiled
 * once from the flags. A result is sent when it passes every filter that is set:
 * - `minimumSeverity`: its severity is at least this one (`info < low < medium < high < critical`;
 *   a result with no severity is below every one);
 * - `namespaces`, `policies`, `sources`: an include list (the value matches one of its wildcards)
 *   or else an exclude list (it matches none); `*` is any run of characters, `?` one, case counts.
 *   A result whose resource has no namespace passes the namespace filter;
 * - `severities`, `status`: an include or exclude list of exact values, case not counted;
 * - `reportLabels`: `NAME:VALUE` entries (VALUE a wildcard, `*` when left out) on the report's labels:
 *   include keeps a report with one such label, exclude drops it.
 * The target's `sources` list is `sources`' include list (Policy Reporter's `sources` replaces
 * `filter.sources`).
 */
import { compileWildcard, type WildcardMatcher } from "../../engine/index.js";

export const SEVERITY_ORDER = ["info", "low", "medium", "high", "critical"] as const;

/** The filtered fields, with their Policy Reporter names as the flags spell them. */
export const FILTER_FIELDS = ["namespaces", "policies", "sources", "severities", "status", "reportLabels"] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

/** One field's values as given: an include list or an exclude list. */
interface ValueFilterSpec {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

interface ResultFilterSpec {
  readonly minimumSeverity?: (typeof SEVERITY_ORDER)[number];
  readonly fields: Readonly<Partial<Record<FilterField, ValueFilterSpec>>>;
}

/** What a filter looks at in one result. */
type FilteredResult = Readonly<Record<"namespace" | "policy" | "source" | "severity" | "status", string>>;

type Check = (r: FilteredResult, reportLabels: Readonly<Record<string, string>>) => boolean;

/** A compiled filter: whether a result (of a report with these labels) is sent. */
export type ResultFilter = Check;

/** Policy Reporter's levels: an empty severity is below info; one it does not know counts as info. */
function level(severity: string): number {
  if (severity === "") return -1;
  return Math.max(0, (SEVERITY_ORDER as readonly string[]).indexOf(severity));
}

function wildcards(spec: ValueFilterSpec): ((value: string) => boolean) | undefined {
  const list = spec.include.length > 0 ? spec.include : spec.exclude;
  if (list.length === 0) return undefined;
  const matchers: WildcardMatcher[] = list.map(compileWildcard);
  const any = (value: string): boolean => matchers.some((m) => m(value));
  return spec.include.length > 0 ? any : (value) => !any(value);
}

function exact(spec: ValueFilterSpec): ((value: string) => boolean) | undefined {
  const list = spec.include.length > 0 ? spec.include : spec.exclude;
  if (list.length === 0) return undefined;
  const set = new Set(list.map((v) => v.toLowerCase()));
  return spec.include.length > 0 ? (value) => set.has(value.toLowerCase()) : (value) => !set.has(value.toLowerCase());
}

function labelChecks(spec: ValueFilterSpec): Check | undefined {
  const list = spec.include.length > 0 ? spec.include : spec.exclude;
  if (list.length === 0) return undefined;
  const wanted = list.map((entry) => {
    const parts = entry.split(":");
    return { name: (parts[0] ?? "").trim(), value: compileWildcard((parts[1] ?? "*").trim()) };
  });
  const has = (labels: Readonly<Record<string, string>>): boolean =>
    wanted.some((w) => Object.hasOwn(labels, w.name) && w.value(labels[w.name] ?? ""));
  return spec.include.length > 0 ? (_r, labels) => has(labels) : (_r, labels) => !has(labels);
}

export function compileResultFilter(spec: ResultFilterSpec): ResultFilter | undefined {
  const checks: Check[] = [];
  const f = spec.fields;
  const add = <T>(made: T | undefined, check: (m: T) => Check): void => {
    if (made !== undefined) checks.push(check(made));
  };
  add(f.namespaces && wildcards(f.namespaces), (m) => (r) => r.namespace === "" || m(r.namespace));
  if (spec.minimumSeverity !== undefined) {
    const least = level(spec.minimumSeverity);
    checks.push((r) => level(r.severity) >= least);
  }
  add(f.sources && wildcards(f.sources), (m) => (r) => m(r.source));
  add(f.policies && wildcards(f.policies), (m) => (r) => m(r.policy));
  add(f.severities && exact(f.severities), (m) => (r) => m(r.severity));
  add(f.status && exact(f.status), (m) => (r) => m(r.status));
  add(f.reportLabels && labelChecks(f.reportLabels), (c) => c);
  if (checks.length === 0) return undefined;
  return (r, labels) => checks.every((c) => c(r, labels));
}
