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
    if (v === undefined || v.default === undefined) return false;
    return mentions.test(v.jmesPath ?? "") || mentions.test(JSON.stringify(v.value ?? null));
  });
}

export function registryDefaultWarning(name: string, reader: string): string {
  return `context entry ${JSON.stringify(name)} reads an image registry, and this run has no registry access (--registry): the entry is skipped, as Kyverno's CLI skips it, and the default of context entry ${JSON.stringify(reader)} applies`;
}

const TO_GIVE = {
  imageRegistry: [
    "reads an image registry, and this run has no registry access",
    "Run with --registry to read the registry, or give",
  ],
  configMap: [
    "reads a ConfigMap, and this run reads no cluster (Kyverno's CLI does not read ConfigMaps from the resources either)",
    "Give",
  ],
  globalReference: ["reads a global context entry, and this run has none", "Give"],
} as const;

/** Said once per entry and run where the CLI skips an entry as Kyverno's CLI does. */
export function skippedEntryWarning(kind: keyof typeof TO_GIVE, name: string): string {
  const [why, how] = TO_GIVE[kind];
  return `context entry ${JSON.stringify(name)} ${why}: the entry is skipped, as Kyverno's CLI skips it, so a rule that reads ${name} is an error (unknown key) unless the policy gives a fallback (|| '', a variable's default), which then applies. ${how} a value for ${JSON.stringify(name)} in a values file (-f values.yaml, or a test's values)`;
}
