/**
 * A policies.kyverno.io PolicyException (v1alpha1, v1beta1, v1) once compiled: the CEL kinds'
 * exception. It names policies by `policyRefs` (kind and name, exactly) and selects requests by CEL
 * `matchConditions`; `images` and `allowedValues` make it a partial exception the policy's own
 * expressions read as `exceptions.allowedImages` / `exceptions.allowedValues`.
 */
import type { JsonObject } from "../../api/json.js";
import type { PolicyProblem } from "../../api/problem.js";
import type { CelProgram } from "../../cel/types.js";
import type { CompiledException } from "../types.js";

export const CEL_EXCEPTION_API_VERSIONS = [
  "policies.kyverno.io/v1",
  "policies.kyverno.io/v1beta1",
  "policies.kyverno.io/v1alpha1",
] as const;
export type CelExceptionApiVersion = (typeof CEL_EXCEPTION_API_VERSIONS)[number];

/** Kyverno's label ordering exceptions that match together: the highest positive integer decides reportResult. */
export const EXCEPTION_PRIORITY_LABEL = "polex.kyverno.io/priority";

export interface PolicyRef {
  readonly kind: string;
  readonly name: string;
}

export interface CompiledCelException {
  readonly kind: "cel";
  readonly name: string;
  /** metadata.namespace, "" when the document has none. */
  readonly namespace: string;
  /** Kyverno's key for messages: `namespace/name`, or `name` when there is no namespace. */
  readonly key: string;
  readonly apiVersion: CelExceptionApiVersion;
  readonly policyRefs: readonly PolicyRef[];
  /** Every condition must be true (none: the exception selects every request of its policies). */
  readonly matchConditions: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly images: readonly string[];
  readonly allowedValues: readonly string[];
  /** What a full exception reports: `skip` (default) or `pass`. */
  readonly reportResult: "skip" | "pass";
  /** spec.expiresAt in epoch milliseconds; from then on the exception is not honoured. */
  readonly expiresAt?: number;
  /** The `polex.kyverno.io/priority` label when it is an integer. */
  readonly priority?: number;
  /** Where the document came from (file and document), when the caller said. */
  readonly source?: string;
  /**
   * A matchCondition that does not compile or is not of type bool exactly, as Kyverno's compiler
   * wants it (cel/exact-types.ts): Kyverno compiles an exception with each policy it names, so each
   * of those policies fails to compile with this field, expression and reason; the exception itself loads.
   */
  readonly refusal?: { readonly field: string; readonly expression: string; readonly reason: string };
  /** Problems that do not stop the exception from loading. */
  readonly warnings: readonly PolicyProblem[];
  readonly document: JsonObject;
}

/** A kyverno.io/v2 exception or a policies.kyverno.io one: requests carry both kinds in one list. */
export type AnyCompiledException = CompiledException | CompiledCelException;

export function isCelException(e: AnyCompiledException): e is CompiledCelException {
  return (e as { kind?: unknown }).kind === "cel";
}

export type CompileCelExceptionOutcome =
  | { readonly ok: true; readonly exception: CompiledCelException }
  | { readonly ok: false; readonly problems: readonly PolicyProblem[] };
