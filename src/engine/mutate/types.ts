import type { Resource } from "../api/resource.js";
import type { JsonPatchCache } from "./json-patch-cache.js";
import type { SubstitutionScope } from "../variables/index.js";

/** What one mutate step did: `pass` changed the resource, `skip` left it as it was. */
export interface MutateOutcome {
  readonly status: "pass" | "skip" | "error";
  readonly message: string;
  /** The resource after the step (the input when nothing changed). */
  readonly resource: Resource;
}

export interface MutateScope {
  readonly ruleName: string;
  /** The resource being patched: the request's object after earlier rules, or a mutate-existing target. */
  readonly resource: Resource;
  readonly vars: SubstitutionScope;
  /** The policy's parsed patchesJson6902 texts. */
  readonly jsonPatches?: JsonPatchCache;
}
