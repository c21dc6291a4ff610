/**
 * What one node's kube-bench checks become in Loki: one line per check, `[FAIL] 4.1.9 <test_desc>`,
 * in a stream labelled with the scheme of the security dashboard (docs/monitoring.md):
 *
 *   job                                  kube-bench (--job)
 *   kube_bench_node_name                 the node
 *   kube_bench_type, kube_bench_target   the controls' node_type (as on kube_bench_info)
 *   kube_bench_syntax                    the benchmark version, e.g. cis-1.10
 *   kube_bench_gb_cis_id                 the check's number, e.g. 4.1.9
 *   kube_bench_gb_tg_test_major_section  its group (section), e.g. 4.1
 *   kube_bench_gb_tg_test_minor_status   PASS, FAIL, WARN or INFO
 *   kube_bench_gb_tg_test_minor_scored   true or false
 *   kube_bench_gb_tg_test_minor_type     manual or skip (only when set)
 *
 * The text that would break Loki's label limits (the audit command, remediation, expected and
 * actual values, descriptions) goes in the entry's structured metadata, each value capped at 8 KiB.
 */
import type { LokiEntry } from "../../../platform/loki/index.js";
import type { KubeBenchCheck, KubeBenchControls, KubeBenchGroup } from "./kube-bench-results.js";
import { infoLabels } from "./info-metrics.js";

const MAX_METADATA_VALUE = 8 * 1024;

export interface CheckLine {
  readonly labels: Readonly<Record<string, string>>;
  readonly entry: LokiEntry;
}

interface CheckLineOptions {
  readonly node: string;
  readonly job: string;
  /** Static labels added to every stream (e.g. cluster). */
  readonly extraLabels: Readonly<Record<string, string>>;
  /** The run's time, Unix nanoseconds; the n-th check is stamped one nanosecond after the one before. */
  readonly timestampNs: bigint;
}

const capped = (v: string): string => (v.length > MAX_METADATA_VALUE ? `${v.slice(0, MAX_METADATA_VALUE)}…` : v);

function metadata(controls: KubeBenchControls, group: KubeBenchGroup, check: KubeBenchCheck): Record<string, string> {
  const fields: Record<string, string> = {
    kube_bench_test_desc: check.testDesc,
    kube_bench_audit: check.audit,
    kube_bench_remediation: check.remediation,
    kube_bench_expected_result: check.expectedResult,
    kube_bench_actual_value: check.actualValue,
    kube_bench_reason: check.reason,
    kube_bench_section_desc: group.desc,
    kube_bench_controls_text: controls.text,
  };
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, v]) => v !== "")
      .map(([k, v]) => [k, capped(v)]),
  );
}

function labels(options: CheckLineOptions, controls: KubeBenchControls, group: KubeBenchGroup, check: KubeBenchCheck) {
  return {
    ...options.extraLabels,
    job: options.job,
    ...infoLabels(controls, options.node),
    kube_bench_gb_cis_id: check.testNumber,
    kube_bench_gb_tg_test_major_section: group.section,
    kube_bench_gb_tg_test_minor_status: check.status,
    kube_bench_gb_tg_test_minor_scored: String(check.scored),
    ...(check.type !== "" ? { kube_bench_gb_tg_test_minor_type: check.type } : {}),
  };
}

/** One Loki line per check of every controls, in kube-bench's order. */
export function checkLines(all: readonly KubeBenchControls[], options: CheckLineOptions): CheckLine[] {
  const lines: CheckLine[] = [];
  for (const controls of all)
    for (const group of controls.tests)
      for (const check of group.results)
        lines.push({
          labels: labels(options, controls, group, check),
          entry: {
            timestampNs: options.timestampNs + BigInt(lines.length),
            line: `[${check.status}] ${check.testNumber} ${check.testDesc}`,
            metadata: metadata(controls, group, check),
          },
        });
  return lines;
}
