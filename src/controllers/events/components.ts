/**
 * The reporting component names of Bylaw's Events: Kyverno's (`kyverno-admission`, `kyverno-scan`,
 * `kyverno-generate`, `kyverno-mutate`, `kyverno-cleanup`) by default, so event-exporter routes and
 * log queries written for Kyverno keep working; `serve --event-component-prefix bylaw` makes them
 * `bylaw-admission`, ….
 */
export interface EventComponents {
  readonly admission: string;
  readonly scan: string;
  readonly generate: string;
  readonly mutate: string;
  readonly cleanup: string;
}

export function eventComponents(prefix = "kyverno"): EventComponents {
  return {
    admission: `${prefix}-admission`,
    scan: `${prefix}-scan`,
    generate: `${prefix}-generate`,
    mutate: `${prefix}-mutate`,
    cleanup: `${prefix}-cleanup`,
  };
}
