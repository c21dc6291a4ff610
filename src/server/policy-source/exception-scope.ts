/**
 * Which PolicyExceptions from the cluster are honoured (Kyverno's `--enablePolicyException` and
 * `--exceptionNamespace`): none unless enabled, and then only those in the namespaces named ("all"
 * when the operator named `*`). An exception outside the scope is ignored, with the reason.
 */
export type ExceptionScope =
  { readonly enabled: false } | { readonly enabled: true; readonly namespaces: "all" | readonly string[] };

/** Why an exception in this namespace is not honoured, or undefined when it is. */
export function exceptionIgnoredBecause(scope: ExceptionScope, namespace: string): string | undefined {
  if (!scope.enabled)
    return "PolicyExceptions from the cluster are off; run bylaw serve with --enable-policy-exception and --exception-namespace NS to honour them";
  if (scope.namespaces === "all" || scope.namespaces.includes(namespace)) return undefined;
  return `namespace ${JSON.stringify(namespace)} is not one PolicyExceptions are honoured from (--exception-namespace ${scope.namespaces.join(", ")})`;
}
