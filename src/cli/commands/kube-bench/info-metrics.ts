/**
 * What one node's kube-bench run becomes on the Pushgateway (exposition format 0.0.4): a
 * kube_bench_info series per target it checked, with the four labels dashboards select on, and
 * kube_bench_checks, kube-bench's own counts per status.
 *
 *   kube_bench_type       the controls' node_type (master, node, etcd, controlplane, policies)
 *   kube_bench_target     the target kube-bench ran (`--targets`; the same node_type)
 *   kube_bench_syntax     the benchmark version, e.g. cis-1.10
 *   kube_bench_node_name  the node (not in kube-bench's JSON: --node or NODE_NAME)
 */
import type { KubeBenchControls } from "./kube-bench-results.js";

const escape = (v: string): string => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const labelText = (labels: Readonly<Record<string, string>>): string =>
  `{${Object.entries(labels)
    .map(([k, v]) => `${k}="${escape(v)}"`)
    .join(",")}}`;

export function infoLabels(controls: KubeBenchControls, node: string): Record<string, string> {
  return {
    kube_bench_type: controls.nodeType,
    kube_bench_target: controls.nodeType,
    kube_bench_syntax: controls.version,
    kube_bench_node_name: node,
  };
}

/** The exposition text for one node's controls (all its runs' targets); one series per distinct label set. */
export function kubeBenchExposition(all: readonly KubeBenchControls[], node: string): string {
  const info = new Map<string, string>();
  const checks = new Map<string, number>();
  for (const c of all) {
    const labels = infoLabels(c, node);
    info.set(labelText(labels), `kube_bench_info${labelText(labels)} 1`);
    for (const [status, n] of Object.entries(c.totals)) {
      const key = `kube_bench_checks${labelText({ ...labels, status })}`;
      checks.set(key, (checks.get(key) ?? 0) + n);
    }
  }
  return [
    "# HELP kube_bench_info A kube-bench run's target on a node (1 while its latest push is held).",
    "# TYPE kube_bench_info gauge",
    ...info.values(),
    "# HELP kube_bench_checks kube-bench's checks of a target on a node by status (its total_pass, total_fail, total_warn, total_info).",
    "# TYPE kube_bench_checks gauge",
    ...[...checks].map(([series, n]) => `${series} ${n}`),
    "",
  ].join("\n");
}
