/**
 * The compiled body of the CEL kinds that validate through programs of their own (ValidatingPolicy,
 * NamespacedValidatingPolicy, ValidatingAdmissionPolicy): one program per spec (a ValidatingPolicy's
 * own, then its autogen copies for pod controllers), each with the matcher that decides which
 * requests reach it. kinds/validating/evaluate.ts runs it per request, never re-parsing.
 */
import type { CompiledAdmissionPolicy } from "../../cel/admission-policy/index.js";
import type { CompiledValidatingPolicy } from "../../cel/validating-policy/index.js";
import type { CompiledMatch } from "../../match/index.js";

export interface CelValidatingProgram {
  /** The name its results carry: "" for a ValidatingPolicy (as Kyverno reports it), a ValidatingAdmissionPolicy's own name. */
  readonly resultName: string;
  /** matchConstraints (a ValidatingAdmissionPolicy with bindings: any binding's matchResources), compiled once. */
  readonly matcher: CompiledMatch;
  readonly program: CompiledValidatingPolicy | CompiledAdmissionPolicy;
  /** Set when an expression did not compile: the `error` every matched resource gets (field and position named). */
  readonly failure: string | undefined;
}

export interface CompiledCelValidatingBody {
  readonly programs: readonly CelValidatingProgram[];
  /** What a failing result does: Enforce when the validationActions (a VAP: any binding's) include Deny, else Audit. */
  readonly action: "Audit" | "Enforce";
}
