/**
 * Kubernetes' `meta.UnsafeGuessKindToResource`, which Kyverno's CLI uses offline for a kind its REST
 * mapper does not know: lower-case, `endpoints` unchanged, `es` after a final s, `ies` for a final y,
 * otherwise `s` (`Pod` → `pods`, `Ingress` → `ingresses`, `Policy` → `policies`). A guess: an irregular
 * plural is guessed wrong.
 */
export function guessedPlural(kind: string): string {
  const k = kind.toLowerCase();
  if (k === "" || k.endsWith("endpoints")) return k;
  if (k.endsWith("s")) return `${k}es`;
  if (k.endsWith("y")) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}
