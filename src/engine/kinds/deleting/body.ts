/** A DeletingPolicy's own compiled body (compile.ts builds it once; decide.ts runs it per object, never re-parsing). */
import type { CelProgram } from "../../cel/types.js";
import type { CompiledConstraints, ResourceRule } from "../../cel/validating-policy/match-constraints.js";

export type DeletionPropagation = "Foreground" | "Background" | "Orphan";

export interface CompiledDeletingBody {
  /** `spec.schedule` as written (a cron spec; checked at compile). */
  readonly schedule: string;
  /** `spec.deletionPropagationPolicy`; undefined: the API server's default for the kind. */
  readonly propagation: DeletionPropagation | undefined;
  /** `spec.matchConstraints`, every operation matching (Kyverno ignores a rule's operations here). */
  readonly constraints: CompiledConstraints;
  /** The resourceRules as written: what the cleanup controller lists. */
  readonly resourceRules: readonly ResourceRule[];
  readonly variables: readonly { readonly name: string; readonly program: CelProgram }[];
  /** `spec.conditions`, in order: all true deletes the object. */
  readonly conditions: readonly { readonly name: string; readonly program: CelProgram }[];
}
