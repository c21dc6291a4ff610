/**
 * The warning Bylaw's CLI gives, once per entry and run, when it skips a context entry as Kyverno's
 * CLI skips what it has no resolver, store or registry client for (ports.ts `skipAsKyvernoCli`):
 * why the entry is skipped, what a read of it then gives, and how to give its data.
 */
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
