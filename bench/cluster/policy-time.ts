/**
 * Where Bylaw's evaluation time goes, by policy: the difference of two scrapes of its
 * kyverno_policy_execution_duration_seconds_sum, over the series of one request operation, summed
 * by policy and rule type (a policy's measured time is shared evenly among its rule results).
 */
import { parseExposition } from "../../test/support/exposition.js";

export interface PolicyTime {
  readonly policy: string;
  readonly ruleType: string;
  readonly seconds: number;
}

const METRIC = "kyverno_policy_execution_duration_seconds";

/** Seconds by `policy\trule_type`, from the series of `operation` (lower case, as the label is). */
function sums(text: string, operation: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of parseExposition(text)) {
    if (s.name !== `${METRIC}_sum` || s.labels["resource_request_operation"] !== operation) continue;
    const key = `${s.labels["policy_name"] ?? ""}\t${s.labels["rule_type"] ?? ""}`;
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

/** The policies' time between two scrapes, most first. */
export function policyTime(before: string, after: string, operation: string): PolicyTime[] {
  const b = sums(before, operation);
  return [...sums(after, operation)]
    .map(([key, s]) => {
      const [policy = "", ruleType = ""] = key.split("\t");
      return { policy, ruleType, seconds: s - (b.get(key) ?? 0) };
    })
    .filter((t) => t.seconds > 0)
    .sort((x, y) => y.seconds - x.seconds);
}

/** New label sets of the metric Bylaw could not give a series of their own between two scrapes (its series budget). */
export function droppedSeries(before: string, after: string): number {
  const count = (text: string): number =>
    parseExposition(text).find((s) => s.name === "bylaw_metrics_series_dropped_total" && s.labels["metric"] === METRIC)
      ?.value ?? 0;
  return count(after) - count(before);
}

/** One line: the total per create and the `top` policies' share of it (partial when series were dropped). */
export function policyTimeLine(times: readonly PolicyTime[], creates: number, top: number, dropped = 0): string {
  const perCreate = (s: number): string => `${((s * 1000) / Math.max(1, creates)).toFixed(2)} ms`;
  const total = times.reduce((n, t) => n + t.seconds, 0);
  const head = times
    .slice(0, top)
    .map((t) => `${t.policy} (${t.ruleType}) ${perCreate(t.seconds)}`)
    .join(", ");
  const partial = dropped > 0 ? ` (PARTIAL: ${dropped} label sets went past the metric's series budget)` : "";
  return `Bylaw's policy time (${METRIC}): ${perCreate(total)} per create over ${times.length} policy and rule-type pairs${partial}; most: ${head}`;
}
