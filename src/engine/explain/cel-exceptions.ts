/**
 * The policies.kyverno.io PolicyExceptions a CEL policy's evaluation considered (those naming the
 * policy, in an allowed namespace, not expired: exceptions/cel/applicable.ts), and whether each
 * exempted the resource (its key is among the results' `exceptions`). A partial exception (images,
 * allowedValues) shows as not applied: it only widens what the expressions allow.
 */
import type { EngineRequest } from "../pipeline/types.js";
import type { RuleResult } from "../api/rule-result.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import { celExceptionsFor } from "../exceptions/cel/index.js";

export function celExceptionsConsidered(
  policy: CompiledPolicy,
  request: EngineRequest,
  results: readonly RuleResult[],
  now: number,
): { name: string; applied: boolean }[] {
  const considered = celExceptionsFor(
    request.exceptions,
    { kind: policy.kind, name: policy.name },
    { now, ...(request.exceptionNamespaces !== undefined ? { allowedNamespaces: request.exceptionNamespaces } : {}) },
  );
  const applied = new Set(results.flatMap((r) => r.exceptions ?? []));
  return considered.map((e) => ({ name: e.key, applied: applied.has(e.key) }));
}
