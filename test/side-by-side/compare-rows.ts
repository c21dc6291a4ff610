/**
 * One suite's rows from `kyverno test -o json --detailed-results` and from `bylaw test`, paired and
 * compared: the outcome (RESULT and REASON: did the row hold, and why not) and the rule message.
 * Rows pair by policy, rule and resource as Kyverno's table names them (`v1/Pod/default/web`, the
 * rule that gave the result: `autogen-NAME` for a Pod controller), in order when a key repeats.
 * Bylaw's side is what `bylaw test -o json` prints for the rows.
 *
 * Kyverno's CLI may print one more row for a resource than Bylaw: a `Pass`/`Excluded` row before the
 * real one. Its ValidatingPolicy engine answers once per compiled variant of a policy (the policy and
 * each autogen variant: Pod controllers, CronJobs), the CLI drops an empty answer only when the
 * variant's matchConstraints are one resource rule without selectors (processor `hasSelector`), and the
 * Pod controllers' variant has two (apps/v1, batch/v1). `printTestResult` adds `Excluded` for an empty
 * answer that comes before any row of the resource, and the variants come from a Go map, so a CronJob
 * gets the extra row in about half of the runs. Such a row, beside a real row of the same key, is
 * counted as `extraExcluded` and not paired.
 */
import type { RowResult } from "../../src/cli/test-suite/types.js";
import { kyvernoRows as bylawTableRows } from "../../src/cli/commands/test/kyverno-formats.js";

/** One row of Kyverno's `test -o json` array (commands/test/output.go printOutputFormats). */
export interface KyvernoRow {
  readonly POLICY: string;
  readonly RULE: string;
  readonly RESOURCE: string;
  readonly RESULT: string;
  readonly REASON: string;
  readonly Message?: string;
}

export interface RowDifference {
  readonly key: string;
  /** `outcome`: RESULT or REASON differ; `message`: same outcome, other text; `kyverno-only`/`bylaw-only`: no pair. */
  readonly what: "outcome" | "message" | "kyverno-only" | "bylaw-only";
  readonly kyverno?: string;
  readonly bylaw?: string;
}

export interface SuiteComparison {
  readonly pairs: number;
  /** Kyverno's `Pass Excluded` rows beside a real row of the same key (an empty answer of another variant). */
  readonly extraExcluded: number;
  readonly differences: readonly RowDifference[];
}

/** The JSON arrays in Kyverno's `test -o json` output (it prints its "Loading …" lines around them). */
export function kyvernoRows(stdout: string): KyvernoRow[] {
  const rows: KyvernoRow[] = [];
  const lines = stdout.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line !== "[") continue;
    const end = lines.indexOf("]", i + 1);
    if (end < 0) break;
    rows.push(...(JSON.parse(lines.slice(i, end + 1).join("\n")) as KyvernoRow[]));
    i = end;
  }
  return rows;
}

function keyOf(policy: string, rule: string, resource: string): string {
  return `${policy}/${rule} ${resource}`;
}

function excluded(row: KyvernoRow): boolean {
  return row.RESULT === "Pass" && row.REASON === "Excluded";
}

export function compareRows(kyverno: readonly KyvernoRow[], bylaw: readonly RowResult[]): SuiteComparison {
  const waiting = new Map<string, KyvernoRow[]>();
  for (const k of kyverno) {
    const key = keyOf(k.POLICY, k.RULE, k.RESOURCE);
    waiting.set(key, [...(waiting.get(key) ?? []), k]);
  }
  let extraExcluded = 0;
  for (const [key, rows] of waiting) {
    if (!rows.some((k) => !excluded(k))) continue;
    const kept = rows.filter((k) => !excluded(k));
    extraExcluded += rows.length - kept.length;
    waiting.set(key, kept);
  }
  const differences: RowDifference[] = [];
  let pairs = 0;
  for (const b of bylawTableRows(bylaw)) {
    const key = keyOf(b.policy, b.rule, b.resource);
    const k = waiting.get(key)?.shift();
    const bOutcome = `${b.result} ${b.reason}`;
    if (k === undefined) {
      differences.push({ key, what: "bylaw-only", bylaw: bOutcome });
      continue;
    }
    pairs++;
    const kOutcome = `${k.RESULT} ${k.REASON}`;
    if (kOutcome !== bOutcome) differences.push({ key, what: "outcome", kyverno: kOutcome, bylaw: bOutcome });
    else if ((k.Message ?? "") !== b.message)
      differences.push({ key, what: "message", kyverno: k.Message ?? "", bylaw: b.message });
  }
  for (const [key, left] of waiting)
    for (const k of left) differences.push({ key, what: "kyverno-only", kyverno: `${k.RESULT} ${k.REASON}` });
  return { pairs, extraExcluded, differences };
}
