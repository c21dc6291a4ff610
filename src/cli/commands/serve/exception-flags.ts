/**
 * The PolicyException flags of `bylaw serve`, with Kyverno's spellings accepted too:
 * `--enable-policy-exception` (`--enablePolicyException`, `--enablePolicyException=true|false`) and
 * `--exception-namespace NS` (`--exceptionNamespace NS`, `--exceptionNamespace=NS`), repeatable,
 * `*` for every namespace.
 *
 * Policies from the cluster: exceptions are off unless enabled, and enabling them needs the
 * namespaces named (Kyverno takes an empty `--exceptionNamespace` as every namespace; Bylaw asks for
 * `*` instead, so that trusting every namespace is a choice written down). Folder mode: exceptions
 * in the folder are the operator's own files and apply, within `--exception-namespace` if given.
 */
import type { ExceptionScope } from "../../../server/policy-source/exception-scope.js";

/** Rewrites Kyverno's spellings of the exception flags to Bylaw's, before parseArgs. */
export function kyvernoExceptionFlags(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    if (a === "--enablePolicyException" || a === "--enablePolicyException=true") out.push("--enable-policy-exception");
    else if (a === "--enablePolicyException=false") continue;
    else if (a === "--exceptionNamespace") out.push("--exception-namespace");
    else if (a.startsWith("--exceptionNamespace="))
      out.push(`--exception-namespace=${a.slice("--exceptionNamespace=".length)}`);
    else out.push(a);
  }
  return out;
}

interface ExceptionSettings {
  /** What the cluster policy source honours. */
  readonly scope: ExceptionScope;
  /** The namespaces the admission handlers restrict exceptions to; undefined: no restriction. */
  readonly namespaces: readonly string[] | undefined;
  /** A flag that has no effect as given, for the log. */
  readonly warning?: string;
}

export function exceptionSettings(
  values: { readonly "enable-policy-exception"?: boolean; readonly "exception-namespace"?: readonly string[] },
  fromCluster: boolean,
): { ok: true; value: ExceptionSettings } | { ok: false; error: string } {
  const named = (values["exception-namespace"] ?? [])
    .flatMap((n) => n.split(","))
    .map((n) => n.trim())
    .filter((n) => n !== "");
  const all = named.includes("*");
  const namespaces = named.length === 0 || all ? undefined : named;
  const enabled = values["enable-policy-exception"] === true;
  if (!fromCluster) {
    return {
      ok: true,
      value: {
        scope: namespaces === undefined ? { enabled: true, namespaces: "all" } : { enabled: true, namespaces },
        namespaces,
        ...(enabled
          ? { warning: "--enable-policy-exception has no effect with --policies: PolicyExceptions in the folder apply" }
          : {}),
      },
    };
  }
  if (!enabled) {
    const warning =
      named.length > 0
        ? "--exception-namespace has no effect without --enable-policy-exception: no PolicyException from the cluster is honoured"
        : undefined;
    return {
      ok: true,
      value: { scope: { enabled: false }, namespaces: undefined, ...(warning !== undefined ? { warning } : {}) },
    };
  }
  if (named.length === 0)
    return {
      ok: false,
      error:
        "--enable-policy-exception needs the namespaces PolicyExceptions are honoured from: --exception-namespace NS (repeatable), or --exception-namespace '*' for every namespace",
    };
  return { ok: true, value: { scope: { enabled: true, namespaces: namespaces ?? "all" }, namespaces } };
}
