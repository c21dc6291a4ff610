/**
 * The TTL controller's decisions, pure: of the objects carrying the `cleanup.kyverno.io/ttl` label,
 * those whose time has come are deleted (with the propagation policy their
 * `cleanup.kyverno.io/propagation-policy` annotation names, if any); a label that is neither a
 * duration nor a time is reported, never acted on; the earliest deadline still ahead says when to
 * look again.
 */
import { isObject, type JsonObject, TTL_LABEL, TTL_PROPAGATION_ANNOTATION, ttlDeadline } from "../../engine/index.js";

interface TtlActions {
  readonly deletions: readonly { readonly object: JsonObject; readonly propagation: string | undefined }[];
  readonly invalid: readonly { readonly object: JsonObject; readonly message: string }[];
  /** The earliest deadline still ahead (ms since the epoch), if any. */
  readonly nextDue: number | undefined;
}

export function ttlActions(objects: readonly JsonObject[], now: number): TtlActions {
  const deletions: { object: JsonObject; propagation: string | undefined }[] = [];
  const invalid: { object: JsonObject; message: string }[] = [];
  let nextDue: number | undefined;
  for (const object of objects) {
    const meta = isObject(object["metadata"]) ? object["metadata"] : {};
    if (meta["deletionTimestamp"] !== undefined && meta["deletionTimestamp"] !== null) continue;
    const labels = isObject(meta["labels"]) ? meta["labels"] : {};
    const value = labels[TTL_LABEL];
    if (typeof value !== "string") continue;
    const created = typeof meta["creationTimestamp"] === "string" ? meta["creationTimestamp"] : undefined;
    const due = ttlDeadline(value, created);
    if (!due.ok) {
      invalid.push({ object, message: due.error.message });
      continue;
    }
    if (due.value <= now) {
      const annotations = isObject(meta["annotations"]) ? meta["annotations"] : {};
      const p = annotations[TTL_PROPAGATION_ANNOTATION];
      deletions.push({ object, propagation: typeof p === "string" && p !== "" ? p : undefined });
    } else if (nextDue === undefined || due.value < nextDue) nextDue = due.value;
  }
  return { deletions, invalid, nextDue };
}
