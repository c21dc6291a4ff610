/**
 * The four components one `bylaw serve` binary runs as (ADR 0018): which controllers each runs and
 * the Lease its replicas elect a leader on. `--component` chooses them (repeatable: one process may
 * run several, each leader-elected on its own Lease, so leading one never blocks another).
 */
export const COMPONENTS = ["admission", "background", "reports", "cleanup", "monitoring"] as const;

export type Component = (typeof COMPONENTS)[number];

export function isComponent(name: string): name is Component {
  return (COMPONENTS as readonly string[]).includes(name);
}

/**
 * Whether a component's replicas elect a leader: the monitoring component only reads reports and
 * serves them on /metrics, the same on every replica (ADR 0019), so it has no Lease.
 */
export function componentElects(component: Component): boolean {
  return component !== "admission" && component !== "monitoring";
}

/**
 * The Lease a component's replicas elect their leader on: the admission controller's is
 * `--leader-elect-lease` (default bylaw-admission); the others are named as Kyverno names its
 * controllers' Leases (kyverno-background-controller, …), with Bylaw's prefix.
 */
export function componentLease(component: Component, admissionLease: string): string {
  return component === "admission" ? admissionLease : `bylaw-${component}-controller`;
}

/** The ServiceAccount deploy/ runs a controller component as (bylaw-reports-controller, …), in Bylaw's namespace. */
export function componentAccount(component: "background" | "reports" | "cleanup"): string {
  return `bylaw-${component}-controller`;
}
