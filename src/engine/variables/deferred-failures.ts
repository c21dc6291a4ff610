/**
 * Context entries that failed to load, as Kyverno's deferred loading treats them
 * (pkg/engine/context/deferred.go): Kyverno loads an entry only when a query names it, so an entry
 * whose source fails is an error only for a query that reads it. A rule whose preconditions skip, or
 * that never reads the entry, is not an error. Bylaw loads every entry in order and keeps the ones
 * that failed here; a query that names one fails with that entry's error.
 */
export interface DeferredFailure {
  /** The entry's name, as a query names it. */
  readonly name: string;
  readonly kind: string;
  /** `failed to load context entry NAME: reason`. */
  readonly message: string;
  /** Kyverno's match for a query naming the entry: its name, not after a `.` (so `x` matches `x.y`, not `y.x`). */
  readonly names: RegExp;
}

/** Kyverno's test of whether a query reads the entry `name` (deferred.go `NewDeferredLoader`). */
export function namesEntry(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[^.0-9A-Za-z])${escaped}\\b`);
}

export function deferredFailure(name: string, kind: string, message: string): DeferredFailure {
  return { name, kind, message, names: namesEntry(name) };
}

/** The first failed entry `text` names, if any. */
export function failureNamedBy(
  text: string,
  failures: readonly DeferredFailure[] | undefined,
): DeferredFailure | undefined {
  if (failures === undefined || failures.length === 0) return undefined;
  return failures.find((f) => f.names.test(text));
}
