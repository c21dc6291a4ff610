/**
 * Kyverno's texts for excepted rules. The handlers for validate (pattern, deny, foreach, cel),
 * mutate, mutate-existing and verifyImages all build the skip message as
 * `"rule is skipped due to policy exceptions" + strings.Join(keys, ", ")` — with no space before
 * the first key, so the message reads `…exceptionsdelta/delta-exception`. Each key is
 * `cache.MetaNamespaceKeyFunc(exception)`: `namespace/name`, or `name` without a namespace.
 */
import type { CompiledException } from "./types.js";

/** Kyverno's key of an exception: `namespace/name`, or `name` when it has no namespace. */
export function exceptionKey(namespace: string, name: string): string {
  return namespace === "" ? name : `${namespace}/${name}`;
}

/** The skip message of a rule excepted by `matched` (in the order matched), exactly as Kyverno writes it. */
export function exceptionSkipMessage(matched: readonly CompiledException[]): string {
  return `rule is skipped due to policy exceptions${matched.map((e) => e.key).join(", ")}`;
}
