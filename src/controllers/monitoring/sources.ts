/** The report kinds the monitoring component reads, and which metric family each feeds. */
import type { Gvr } from "../../kube/types.js";

export type SourceFamily = "policy-report" | "cluster-policy-report" | "trivy-vulnerabilities" | "trivy-configaudits";

export interface MonitoredSource {
  readonly gvr: Gvr;
  readonly family: SourceFamily;
}

const wg = (resource: string): Gvr => ({ group: "wgpolicyk8s.io", version: "v1alpha2", resource });
const open = (resource: string): Gvr => ({ group: "openreports.io", version: "v1alpha1", resource });
const trivy = (resource: string): Gvr => ({ group: "aquasecurity.github.io", version: "v1alpha1", resource });

export const MONITORED_SOURCES: readonly MonitoredSource[] = [
  { gvr: wg("policyreports"), family: "policy-report" },
  { gvr: wg("clusterpolicyreports"), family: "cluster-policy-report" },
  { gvr: open("reports"), family: "policy-report" },
  { gvr: open("clusterreports"), family: "cluster-policy-report" },
  { gvr: trivy("vulnerabilityreports"), family: "trivy-vulnerabilities" },
  { gvr: trivy("clustervulnerabilityreports"), family: "trivy-vulnerabilities" },
  { gvr: trivy("configauditreports"), family: "trivy-configaudits" },
  { gvr: trivy("clusterconfigauditreports"), family: "trivy-configaudits" },
];

/** `policyreports.wgpolicyk8s.io`: how a source is named in the `resource` label and in logs. */
export function sourceName(gvr: Gvr): string {
  return `${gvr.resource}.${gvr.group}`;
}
