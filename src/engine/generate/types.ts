/** Public shapes of the generate core (Kyverno `pkg/background/generate/*`) and the parsed form of a generate block. */
import type { JsonObject, JsonValue } from "../api/json.js";
import type { LabelSelector } from "../api/policy.js";
import type { Resource } from "../api/resource.js";
import type { Result } from "../api/result.js";

/**
 * Where clone sources come from: the test suite's files offline, the API server in a cluster.
 * An empty `apiVersion` means "any version of this kind" (a cloneList kind written without one).
 * `list` may ignore the selector: generateResources filters the answer again.
 */
export interface ExistingResources {
  get(apiVersion: string, kind: string, namespace: string, name: string): Result<Resource | undefined>;
  /** As a Kubernetes list: an empty namespace lists the kind in every namespace. */
  list(apiVersion: string, kind: string, namespace: string, selector?: LabelSelector): Result<readonly Resource[]>;
  /**
   * The kind of a group/version's resource (its plural), as the cluster serves it: how a custom
   * resource a mutate-existing MutatingPolicy's target constraints name is listed. `undefined`: not
   * served. Absent: only the built-in kinds are known.
   */
  kindOf?(apiVersion: string, resource: string): Result<string | undefined>;
  /** The resource (plural) of a group/version's kind, the other way round; absent as `kindOf`. */
  resourceOf?(apiVersion: string, kind: string): Result<string | undefined>;
}

export interface GenerateInput {
  readonly policy: { readonly kind: "ClusterPolicy" | "Policy"; readonly name: string; readonly namespace: string };
  readonly rule: string;
  /** The rule's generate block (or one foreach element's pattern), variables already substituted. */
  readonly generate: JsonObject;
  /** The resource that triggered the rule. */
  readonly trigger: Resource;
  readonly existing: ExistingResources;
}

export interface CloneFrom {
  readonly namespace: string;
  readonly name: string;
}

export interface CloneListSpec {
  readonly namespace: string;
  readonly kinds: readonly string[];
  readonly selector?: LabelSelector;
}

/** A generate block read into typed fields. Absent or empty parts are left undefined. */
export interface GenerateSpec {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  /** `data` when written and not null (any JSON: a non-object is reported later). */
  readonly data?: JsonValue;
  /** `clone` when it names a namespace or a name (Kyverno treats `clone: {}` as absent). */
  readonly clone?: CloneFrom;
  /** `cloneList` when written as an object (its kinds may still be empty). */
  readonly cloneList?: CloneListSpec;
  /** `foreach` written and not null. */
  readonly hasForeach: boolean;
  readonly synchronize: boolean;
  readonly orphanDownstreamOnPolicyDelete: boolean;
}
