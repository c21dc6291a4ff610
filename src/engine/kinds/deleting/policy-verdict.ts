/**
 * Whether a compiled DeletingPolicy deletes one object, with the policies.kyverno.io
 * PolicyExceptions that name it applied: the one decision `bylaw test` (evaluate.ts) and the
 * cleanup controller (controllers/cleanup/runnable.ts) both ask, so an object excepted offline is
 * kept in the cluster too.
 */
import { celExceptionsFor, exceptionRefusal, type AnyCompiledException } from "../../exceptions/cel/index.js";
import type { EnginePorts } from "../../ports.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { deletingVerdict } from "./decide.js";

export function deletingPolicyVerdict(
  policy: Extract<CompiledPolicy, { language: "deleting" }>,
  candidate: Parameters<typeof deletingVerdict>[1],
  run: {
    readonly ports: EnginePorts;
    /** Every compiled exception at hand (of either group); those naming this policy apply. */
    readonly exceptions?: readonly AnyCompiledException[];
    /** Exact namespaces exceptions are honoured from (Kyverno's --exceptionNamespace); absent: all. */
    readonly exceptionNamespaces?: readonly string[];
    /** False: a namespaced policy also selects objects of other namespaces (decide.ts; Kyverno's CLI). */
    readonly ownNamespaceOnly?: boolean;
  },
): ReturnType<typeof deletingVerdict> {
  const exceptions = celExceptionsFor(
    run.exceptions,
    { kind: policy.kind, name: policy.name },
    {
      now: run.ports.clock.nowMillis(),
      ...(run.exceptionNamespaces !== undefined ? { allowedNamespaces: run.exceptionNamespaces } : {}),
    },
  );
  const refused = exceptionRefusal(exceptions);
  return deletingVerdict(policy.deleting, candidate, {
    policyNamespace: policy.namespace,
    ...(run.ownNamespaceOnly !== undefined ? { ownNamespaceOnly: run.ownNamespaceOnly } : {}),
    ports: run.ports,
    exceptions,
    ...(refused !== undefined
      ? { refused: `${policy.kind} ${policy.name}: ${refused.field}: compilation failed: ${refused.reason}` }
      : {}),
  });
}
