/**
 * An imageRegistry entry read where there is no registry access. Kyverno's CLI skips the entry (its
 * name stays unset), so a later `variable` entry that reads it falls back on its `default`. Bylaw does
 * the same where such a default is given, and says so through the port's `warn`; with no default
 * that would stand in, the entry stays an error naming `--registry` (never a silent pass).
 */
import type { ContextEntry } from "../api/policy.js";
import { namesEntry } from "../variables/index.js";

/** The later `variable` entry with a `default` that reads `name`, if any. */
export function defaultReadingEntry(name: string, later: readonly ContextEntry[]): ContextEntry | undefined {
  const mentions = namesEntry(name);
  return later.find((e) => {
    const v = e.variable;
    // Only a query of the context stands in with its default: variables in a value that cannot be
    // substituted are the entry's error whatever the default (Kyverno's variable loader).
    if (v === undefined || v.default === undefined || (v.value !== undefined && v.value !== null)) return false;
    return mentions.test(v.jmesPath ?? "");
  });
}

export function registryDefaultWarning(name: string, reader: string): string {
  return `context entry ${JSON.stringify(name)} reads an image registry, and this run has no registry access (--registry): the entry is skipped, as Kyverno's CLI skips it, and the default of context entry ${JSON.stringify(reader)} applies`;
}
