/** What the engine knows of each policy kind (ADR 0005 §2): one descriptor a kind, behind one registry. */

export type PolicyKindName =
  | "ClusterPolicy"
  | "Policy"
  | "ValidatingPolicy"
  | "NamespacedValidatingPolicy"
  | "MutatingPolicy"
  | "NamespacedMutatingPolicy"
  | "GeneratingPolicy"
  | "NamespacedGeneratingPolicy"
  | "DeletingPolicy"
  | "NamespacedDeletingPolicy"
  | "ImageValidatingPolicy"
  | "NamespacedImageValidatingPolicy"
  | "ValidatingAdmissionPolicy"
  | "MutatingAdmissionPolicy"
  | "CleanupPolicy"
  | "ClusterCleanupPolicy";

/** The language a kind's body is written in (`generating`: GeneratingPolicy's CEL generate body; `mutating`: MutatingPolicy's; `deleting`: DeletingPolicy's); `unsupported` for a kind Bylaw compiles but does not run yet. */
export type PolicyLanguage =
  "kyverno" | "cel" | "mutating" | "generating" | "deleting" | "image-validating" | "unsupported";

/** How the kind's status subresource looks: kyverno.io's (rulecount, autogen.rules) or policies.kyverno.io's. */
type StatusShape = "kyverno" | "cel" | "none";

export interface PolicyKindDescriptor {
  readonly kind: PolicyKindName;
  /** The API group its documents are written in (`kyverno.io`, `policies.kyverno.io`, `admissionregistration.k8s.io`). */
  readonly group: string;
  /** Namespaced kinds live in (and only apply within) one namespace. */
  readonly scope: "namespaced" | "cluster";
  readonly language: PolicyLanguage;
  /**
   * Whether Bylaw evaluates the kind in admission: `evaluated` (its rules run), or `none` (it does
   * not decide admission, or Bylaw leaves it to the API server). A kind that acts in admission which
   * Bylaw cannot run is refused at `kubectl apply`, never half-served.
   */
  readonly admission: "evaluated" | "none";
  /** Why the policy webhook cannot run a policy of this kind (undefined when it can, in part or whole). */
  readonly notServed: string | undefined;
  readonly status: StatusShape;
  /** Kyverno's short name of the kind, which starts its own webhook's name and path (`vpol`, …); "" if none. */
  readonly shortName: string;
  /** What the kind does: the phases its policies take part in. */
  readonly phases: readonly PolicyPhase[];
  /** The CRD's plural resource name (`validatingpolicies`), by which the API server serves it. */
  readonly resource: string;
  /**
   * The `source` of its results in a report, as Kyverno's report builder names it
   * (pkg/utils/report/source.go: `kyverno`, `KyvernoValidatingPolicy`, `ValidatingAdmissionPolicy`,
   * …); "" for a kind whose results Kyverno never reports (DeletingPolicy).
   */
  readonly reportSource: string;
  /** The binding kind that applies a policy of this kind (a ValidatingAdmissionPolicy's); undefined for the others. */
  readonly boundBy: "ValidatingAdmissionPolicyBinding" | "MutatingAdmissionPolicyBinding" | undefined;
  /** Where `apply` and `test` run the kind's policies on one resource (see CliStages). */
  readonly cliStages: CliStages;
}

/**
 * The stages of Kyverno's CLI on one resource (cmd/cli/kubectl-kyverno/processor/policy_processor.go
 * ApplyPoliciesOnResource), lower first, each stage's policies in policy order: kyverno.io mutate 0,
 * kyverno.io verifyImages 1 (every policy's mutate rules run before any policy's verifyImages rules),
 * kyverno.io validate 2, MutatingAdmissionPolicy 3, MutatingPolicy 4, ValidatingAdmissionPolicy 5,
 * ValidatingPolicy 6, GeneratingPolicy 7, kyverno.io generate 8. Each stage sees the resource every
 * mutation before it made. A pass the kind's policies take no part in is never asked for.
 */
export interface CliStages {
  readonly mutate: number;
  readonly verifyImages: number;
  readonly validate: number;
  readonly generate: number;
  /**
   * The kind's policies mutate as one batch (Kyverno's mpol engine): each policy's response carries
   * the batch's final object, which Kyverno prints under every one of them.
   */
  readonly mutateAsBatch: boolean;
  /**
   * `kyverno apply` adds the kind's results to its totals twice (its processor counts a
   * MutatingPolicy's response, then calls processMutateEngineResponse, which counts it again); the
   * text output's totals copy that, every other output counts each result once.
   */
  readonly countedTwice: boolean;
  /**
   * The kind's responses are listed after all the others of the resource, whatever its stage:
   * Kyverno's CLI evaluates ValidatingAdmissionPolicies in their stage and appends their responses
   * last, so their rows print after generate's.
   */
  readonly listedLast: boolean;
  /**
   * Kyverno's CLI runs the kind's policies apart from the stages (ImageValidatingPolicy 0,
   * DeletingPolicy 1; undefined for the others): on the resource as it was given, not as the stages
   * patched it, validate only (no digest mutation), after the resource's stages in `test` and after
   * every resource in `apply` (each kind in rank order, resource by resource).
   */
  readonly apart: number | undefined;
}

export type PolicyPhase = "validate" | "mutate" | "generate" | "verifyImages" | "delete";

/** What a document is, as the engine reads it. */
export type Classification =
  | { readonly role: "policy"; readonly kind: PolicyKindDescriptor }
  | { readonly role: "exception"; readonly language: "kyverno" | "cel" }
  | { readonly role: "binding"; readonly of: "ValidatingAdmissionPolicy" | "MutatingAdmissionPolicy" }
  | {
      readonly role: "not-a-policy";
      readonly reason: string;
      /** The policy kinds its kind is a typo of (ClusterPolcy: ClusterPolicy), when it is near one. */
      readonly nearKinds?: readonly string[];
    };
