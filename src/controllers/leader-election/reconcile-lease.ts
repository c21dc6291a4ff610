/**
 * One step of leader election, decided without I/O: from the Lease just read (`current`, undefined
 * when it does not exist) and what this replica saw before, whether to create the Lease, write it
 * (take it over, or renew it as its holder), or wait. The rules are client-go's, as
 * lease-elector.ts describes them; the loop there reads the Lease, calls this, and does the write.
 */
import type { LeaseRecord, StoredLease } from "../../kube/lease-store.js";

export interface LeaseView {
  /** The Lease as just read; undefined when it does not exist. */
  readonly current: StoredLease | undefined;
  /** The record this replica read before (undefined before any read). */
  readonly seen: LeaseRecord | undefined;
  /** When this replica first saw the current record (its own clock), for the holder's expiry. */
  readonly observedAt: number;
  /** When this replica first found the Lease missing after seeing it held; undefined otherwise. */
  readonly missingSince: number | undefined;
  /** Whether this replica leads now. */
  readonly leading: boolean;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly now: number;
}

type LeaseAction =
  | { readonly kind: "wait"; readonly missingSince: number | undefined }
  | { readonly kind: "create"; readonly record: LeaseRecord; readonly missingSince: number | undefined }
  | { readonly kind: "update"; readonly record: LeaseRecord; readonly resourceVersion: string };

export function reconcileLease(view: LeaseView): LeaseAction {
  const mine = (acquireTime: number, transitions: number): LeaseRecord => ({
    holderIdentity: view.identity,
    leaseDurationSeconds: Math.ceil(view.leaseDurationMs / 1000),
    acquireTime,
    renewTime: view.now,
    leaseTransitions: transitions,
  });
  const current = view.current;
  if (current === undefined) return missingLease(view, mine(view.now, 0));
  const record = current.record;
  const held = record.holderIdentity !== "" && record.holderIdentity !== view.identity;
  if (held && view.observedAt + record.leaseDurationSeconds * 1000 > view.now)
    return { kind: "wait", missingSince: view.missingSince };
  const next =
    record.holderIdentity === view.identity
      ? mine(record.acquireTime, record.leaseTransitions)
      : mine(view.now, record.leaseTransitions + 1);
  return { kind: "update", record: next, resourceVersion: current.resourceVersion };
}

/**
 * A Lease deleted under a holder other than this leader (or under this replica after it lost touch,
 * when another may have taken over unseen): that holder may have renewed since it was read and still
 * act as leader, so wait a whole lease duration from when the Lease was first found missing (an alive
 * holder recreates it at its next renewal). A replica that never saw it held creates it at once.
 */
function missingLease(view: LeaseView, record: LeaseRecord): LeaseAction {
  const seen = view.seen;
  if (seen === undefined || seen.holderIdentity === "" || view.leading)
    return { kind: "create", record, missingSince: view.missingSince };
  const since = view.missingSince ?? view.now;
  if (since + seen.leaseDurationSeconds * 1000 > view.now) return { kind: "wait", missingSince: since };
  return { kind: "create", record, missingSince: since };
}
