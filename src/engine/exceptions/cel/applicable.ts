/**
 * Which policies.kyverno.io PolicyExceptions may apply to one policy: those whose `policyRefs`
 * name it by kind and name (exactly; an exception's own namespace does not limit what it
 * excepts), that have not expired, and that live in an allowed namespace (Kyverno's
 * `--exceptionNamespace`). Kyverno 1.19 skips expired exceptions at admission only (its CLI and
 * background scans still apply them, kyverno/kyverno#17473); Bylaw honours `expiresAt` everywhere.
 */
import { isCelException, type AnyCompiledException, type CompiledCelException, type PolicyRef } from "./types.js";

interface CelExceptionScope {
  /** Now, in epoch milliseconds (the engine's clock port). */
  readonly now: number;
  /** Exact namespaces exceptions are honoured from; absent or empty: every namespace. */
  readonly allowedNamespaces?: readonly string[];
}

export function celExceptionsFor(
  all: readonly AnyCompiledException[] | undefined,
  policy: PolicyRef,
  scope: CelExceptionScope,
): CompiledCelException[] {
  if (all === undefined || all.length === 0) return [];
  const allowed = scope.allowedNamespaces ?? [];
  const out: CompiledCelException[] = [];
  for (const e of all) {
    if (!isCelException(e)) continue;
    if (allowed.length > 0 && !allowed.includes(e.namespace)) continue;
    if (e.expiresAt !== undefined && e.expiresAt <= scope.now) continue;
    if (e.policyRefs.some((r) => r.kind === policy.kind && r.name === policy.name)) out.push(e);
  }
  return out;
}

/**
 * The refusal of the first exception that has one (types.ts `refusal`): Kyverno compiles the
 * exceptions naming a policy with it, so the policy fails to compile with that field and reason.
 */
export function exceptionRefusal(
  exceptions: readonly CompiledCelException[],
): NonNullable<CompiledCelException["refusal"]> | undefined {
  return exceptions.find((e) => e.refusal !== undefined)?.refusal;
}
