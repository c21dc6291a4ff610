/**
 * The cleanup controller's counters on /metrics, named and labelled as Kyverno's cleanup
 * controller exposes them (spec §10): `kyverno_cleanup_controller_deletedobjects_total` and
 * `kyverno_cleanup_controller_errors_total` (policy_name, policy_namespace, policy_type,
 * resource_kind, resource_namespace, deletion_propagation), a DeletingPolicy's
 * `kyverno_deleting_controller_deletedobjects_total` and `kyverno_deleting_controller_errors_total`
 * (the same with `resource`, the plural, for resource_kind), `kyverno_ttl_controller_deletedobjects_total`
 * and `kyverno_ttl_controller_errors_total` (resource_group, resource_version, resource_resource,
 * resource_namespace).
 */
import { Counter, type Registry } from "prom-client";

const CLEANUP_LABELS = [
  "policy_name",
  "policy_namespace",
  "policy_type",
  "resource_kind",
  "resource_namespace",
  "deletion_propagation",
] as const;
const DELETING_LABELS = [
  "policy_name",
  "policy_namespace",
  "policy_type",
  "resource",
  "resource_namespace",
  "deletion_propagation",
] as const;
const TTL_LABELS = ["resource_group", "resource_version", "resource_resource", "resource_namespace"] as const;

type Labels<K extends readonly string[]> = { readonly [k in K[number]]: string };

interface CleanupCounterSet {
  deleted(labels: Labels<typeof CLEANUP_LABELS>): void;
  failed(labels: Labels<typeof CLEANUP_LABELS>): void;
  deletingDeleted(labels: Labels<typeof DELETING_LABELS>): void;
  deletingFailed(labels: Labels<typeof DELETING_LABELS>): void;
  ttlDeleted(labels: Labels<typeof TTL_LABELS>): void;
  ttlFailed(labels: Labels<typeof TTL_LABELS>): void;
}

export function cleanupCounters(registry: Registry): CleanupCounterSet {
  const counter = <K extends readonly string[]>(name: string, help: string, labelNames: K): Counter<K[number]> =>
    new Counter({ name, help, labelNames, registers: [registry] });
  const deleted = counter(
    "kyverno_cleanup_controller_deletedobjects_total",
    "can be used to track number of deleted objects.",
    CLEANUP_LABELS,
  );
  const failed = counter(
    "kyverno_cleanup_controller_errors_total",
    "can be used to track number of cleanup failures.",
    CLEANUP_LABELS,
  );
  const deletingDeleted = counter(
    "kyverno_deleting_controller_deletedobjects_total",
    "can be used to track number of deleted objects.",
    DELETING_LABELS,
  );
  const deletingFailed = counter(
    "kyverno_deleting_controller_errors_total",
    "can be used to track number of deleting failures.",
    DELETING_LABELS,
  );
  const ttlDeleted = counter(
    "kyverno_ttl_controller_deletedobjects_total",
    "can be used to track number of deleted objects by the ttl resource controller.",
    TTL_LABELS,
  );
  const ttlFailed = counter(
    "kyverno_ttl_controller_errors_total",
    "can be used to track number of ttl cleanup failures.",
    TTL_LABELS,
  );
  return {
    deleted: (l) => deleted.inc(l),
    failed: (l) => failed.inc(l),
    deletingDeleted: (l) => deletingDeleted.inc(l),
    deletingFailed: (l) => deletingFailed.inc(l),
    ttlDeleted: (l) => ttlDeleted.inc(l),
    ttlFailed: (l) => ttlFailed.inc(l),
  };
}
