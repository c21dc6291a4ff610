/** A policy parsed, checked and compiled once: autogen rules expanded, expressions pre-parsed. */
import type { PolicyDocument, Rule } from "../api/policy.js";
import type { CompiledMatch } from "../match/index.js";
import type { JsonPatchCache } from "../mutate/json-patch-cache.js";
import type { PatternCache } from "../pattern/index.js";
import type { CompiledPodSecurity } from "../pod-security/index.js";
import type { CompiledManifestsRule } from "../manifests/index.js";
import type { ExpressionCache } from "../variables/index.js";
import type { ValidatePass } from "../validate/types.js";
import type { PolicyProblem } from "../api/problem.js";
import type { FastPass } from "../validate/fast-pass.js";
import type { CompiledCelRule } from "../cel/validate-rule/index.js";
import type { CompiledGeneratingPolicy } from "../cel/generating-policy/index.js";
import type { CompiledMutatingBody } from "../cel/mutating-policy/compiled.js";
import type { CompiledMutatingAdmissionPolicy } from "../cel/mutating-admission-policy/index.js";
import type { CompiledMatchCondition } from "./webhook-match-conditions.js";
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { PolicyKindDescriptor, PolicyKindName, PolicyPhase } from "../kinds/types.js";
import type { CompiledDeletingBody } from "../kinds/deleting/body.js";
import type { CompiledImageValidatingBody } from "../kinds/image-validating/body.js";
import type { CompiledCelValidatingBody } from "../kinds/validating/body.js";

export interface CompiledRule {
  readonly rule: Rule;
  readonly name: string;
  /** match/exclude, compiled once. */
  readonly matcher: CompiledMatch;
  /** For `autogen-*` rules, the name of the Pod rule they came from. */
  readonly autogenOf: string | undefined;
  /** The failure action when no override can apply (see pipeline/failure-action.ts `staticAction`). */
  readonly action: "Audit" | "Enforce" | undefined;
  /** validate.podSecurity, compiled once (level, version, exclusions). */
  readonly podSecurity: CompiledPodSecurity | undefined;
  /** validate.manifests, read once (or kept for substitution when it holds variables). */
  readonly manifests: CompiledManifestsRule | undefined;
  /** A validate rule's pass, made once: most evaluations end in it. */
  readonly validatePass: ValidatePass | undefined;
  /**
   * For a pattern rule that needs no variable scope, its pass (and plain failures) without one
   * (validate/fast-pass.ts); only once the rule's preconditions, if it has any, are met.
   */
  readonly fastPass: FastPass | undefined;
  /**
   * For a validate rule whose result depends on the request and its own text alone (pattern,
   * anyPattern, deny or foreach; no context entries, CEL, podSecurity, manifests or image checks),
   * that text with what of its policy the rule reads (namespace, validationFailureAction): two rules
   * with the same key give the same result on the same request, so the request computes it once
   * (pipeline/validate-policy.ts; copies of a policy). Undefined for every other rule.
   */
  readonly shareKey: string | undefined;
  /**
   * Set when the rule uses a feature Bylaw does not run yet (policy/unsupported.ts), or its CEL does
   * not compile (the error names the field and position): the message of
   * the `error` result every matched resource gets. Decided at compile time, never re-checked.
   */
  readonly unsupported: string | undefined;
  /** validate.cel and celPreconditions, compiled once (cel/validate-rule); a compile error is `unsupported`'s message. */
  readonly cel: CompiledCelRule | undefined;
  /**
   * The field through which the rule reads namespace labels beyond `kubernetes.io/metadata.name`
   * (match/namespace-labels.ts), or undefined: where a namespace's labels are unknown, such a rule
   * cannot be evaluated.
   */
  readonly namespaceLabels: string | undefined;
}

/**
 * What a policy was compiled from (ADR 0005's policy head, in part): its real kind and apiVersion,
 * its own document as written and, for a ValidatingAdmissionPolicy, the bindings that apply it.
 * Compiling these again (`engine.compile(document, { bindings })`) rebuilds the policy: an
 * evaluation worker does (server/worker/). Never re-read at evaluation.
 */
export interface PolicyOrigin {
  readonly kind: PolicyKindDescriptor;
  readonly apiVersion: string;
  readonly document: JsonObject;
  readonly bindings: readonly JsonObject[];
}

/**
 * The part of a policy's head (ADR 0005 §1) read from its own document by its language
 * (kinds/head.ts), whatever body it has: what the webhook needs, and the phases it takes part in.
 */
export interface DocumentHead {
  /**
   * The phases the policy takes part in: for kyverno.io policies, those its rules (autogen included)
   * have (`verifyImages`: verifyImages-only rules, which run in the mutate phase; verifyImages rules
   * also count as `validate`); a CEL or unsupported kind, `validate`. The webhook's and the library's
   * "which policies validate/mutate/generate" lists read them (`hasValidateRules` and friends).
   */
  readonly phases: readonly PolicyPhase[];
  /** The webhook's failurePolicy: `webhookConfiguration.failurePolicy`, else `spec.failurePolicy`, else Fail. */
  readonly failurePolicy: "Fail" | "Ignore";
  /** A ValidatingPolicy's validationActions (Deny when unset); undefined for the kinds without them here. */
  readonly validationActions: readonly string[] | undefined;
  /** False for a policy kept out of admission (`spec.admission: false`, `evaluation.admission.enabled: false`). */
  readonly admission: boolean;
  /** Whether the policy answers with warnings (`spec.emitWarning`, a Warn validation action). */
  readonly emitWarning: boolean;
  /** The policy's own `metadata.labels` (string values only). */
  readonly labels: Readonly<Record<string, string>>;
  /**
   * Whether evaluating the policy can read live state: the cluster, a service, a registry, the clock
   * or randomness (kinds/reads-live-state.ts). A background rescan never skips what it answered for.
   */
  readonly readsLiveState: boolean;
}

/**
 * What every compiled policy has, whatever its language (ADR 0005 §1's head): identity, the webhook's
 * part (`DocumentHead`), report metadata, and what it was compiled from.
 */
interface PolicyHeadFields extends DocumentHead {
  readonly origin: PolicyOrigin;
  /** The policy's own kind (a ValidatingPolicy says ValidatingPolicy), as `origin.kind.kind`. */
  readonly kind: PolicyKindName;
  readonly name: string;
  /** "" for a cluster-wide policy. */
  readonly namespace: string;
  readonly background: boolean;
  /** `policies.kyverno.io/scored: "false"` turns fail into warn in reports. */
  readonly scored: boolean;
  readonly severity?: string;
  readonly category?: string;
  readonly warnings: readonly PolicyProblem[];
}

/** A kyverno.io policy's body: its compiled rules. No other language has rules (ADR 0005 step 3). */
interface KyvernoRules {
  /** Originals first, then the autogen rules, in Kyverno's order. */
  readonly rules: readonly CompiledRule[];
  readonly applyRules: "All" | "One";
}

/**
 * The rest of a kyverno.io policy's body: the webhook's matchConditions, whether `images` is read,
 * and the caches its rules' expressions, patterns and patches share. No other language has them.
 */
interface RuleBodyFields {
  /**
   * `spec.webhookConfiguration.matchConditions` (kyverno.io kinds), compiled once: evaluated before
   * the rules (pipeline/policy-match-conditions.ts); such a policy gets its own webhook at registration.
   */
  readonly matchConditions?: readonly CompiledMatchCondition[];
  /**
   * Whether any string of the policy's rules mentions `images`: only then is the request's image
   * data built for it (a policy that never names `images` cannot read the variable).
   */
  readonly usesImages: boolean;
  readonly cache: ExpressionCache;
  readonly patterns: PatternCache;
  readonly jsonPatches: JsonPatchCache;
}

/** A kyverno.io ClusterPolicy/Policy: its document is the parsed kyverno.io policy its rules came from. */
export interface KyvernoCompiledPolicy extends PolicyHeadFields, RuleBodyFields, KyvernoRules {
  readonly language: "kyverno";
  readonly document: PolicyDocument;
}

/**
 * A ValidatingPolicy (or Namespaced) or ValidatingAdmissionPolicy: its own document, and its compiled
 * programs (`validating`), run by kinds/validating/evaluate.ts.
 */
interface CelCompiledPolicy extends PolicyHeadFields {
  readonly language: "cel";
  /** The policy's own document, as written (`origin.document`). */
  readonly document: JsonObject;
  readonly validating: CompiledCelValidatingBody;
}

/**
 * A GeneratingPolicy or NamespacedGeneratingPolicy: its own compiled body (`generating`); it has no
 * kyverno-shaped rules (`rules` is empty).
 */
interface GeneratingCompiledPolicy extends PolicyHeadFields {
  readonly language: "generating";
  /** The policy's own document, as written (`origin.document`). */
  readonly document: JsonObject;
  readonly generating: CompiledGeneratingPolicy;
}

/** A MutatingPolicy or NamespacedMutatingPolicy: its own compiled body (no rules), run by kinds/mutating/. */
interface MutatingCompiledPolicy extends PolicyHeadFields {
  readonly language: "mutating";
  /** The policy's own document, as written (`origin.document`). */
  readonly document: JsonObject;
  /** The policy's spec, then its autogen copies for pod controllers, compiled once. */
  readonly mutating: readonly CompiledMutatingBody[];
  /** A Kubernetes MutatingAdmissionPolicy's programs and bindings (then `mutating` is empty); undefined for a MutatingPolicy. */
  readonly mutatingAdmission?: CompiledMutatingAdmissionPolicy;
}

/**
 * What a kind Bylaw does not run answers with (ADR 0005 §4): the error every resource in its scope
 * gets, and the failure action its validationActions give that error (Deny, or none: Enforce).
 */
interface UnsupportedBody {
  readonly message: string;
  readonly action: "Audit" | "Enforce";
}

/**
 * A kind Bylaw does not run: no rules; its body's error for every resource in its scope
 * (kinds/unsupported/evaluate.ts).
 */
interface UnsupportedCompiledPolicy extends PolicyHeadFields {
  readonly language: "unsupported";
  /** The policy's own document, as written (`origin.document`). */
  readonly document: JsonObject;
  /**
   * The kind as messages name it (`<apiVersion> <Kind>`): whatever rule a test row names, the
   * policy's error is its answer.
   */
  readonly unsupportedKind: string;
  readonly unsupported: UnsupportedBody;
}

/** A DeletingPolicy (or Namespaced): no rules; its own body, which the cleanup controller runs on its schedule. */
interface DeletingCompiledPolicy extends PolicyHeadFields {
  readonly language: "deleting";
  /** The policy's own document, as written (`origin.document`). */
  readonly document: JsonObject;
  readonly deleting: CompiledDeletingBody;
}

/** An ImageValidatingPolicy (or Namespaced): no rules; its own body, run by kinds/image-validating/. */
interface ImageValidatingCompiledPolicy extends PolicyHeadFields {
  readonly language: "image-validating";
  /** The policy's own document, as written (`origin.document`). */
  readonly document: JsonObject;
  readonly imageValidating: CompiledImageValidatingBody;
}

/**
 * A compiled policy (ADR 0005 §1): one head, and a body by `language`. `document` is the policy's own
 * document (for kyverno.io policies, typed as one); code that reads kyverno.io fields narrows on
 * `language` first.
 */
export type CompiledPolicy =
  | KyvernoCompiledPolicy
  | CelCompiledPolicy
  | MutatingCompiledPolicy
  | GeneratingCompiledPolicy
  | DeletingCompiledPolicy
  | ImageValidatingCompiledPolicy
  | UnsupportedCompiledPolicy;

/** A compiled policy before the kind registry records its origin (kinds/compile.ts). */
export type UnsourcedPolicy =
  | Omit<KyvernoCompiledPolicy, "origin" | keyof DocumentHead>
  | Omit<CelCompiledPolicy, "origin" | keyof DocumentHead>
  | Omit<MutatingCompiledPolicy, "origin" | keyof DocumentHead>
  | Omit<GeneratingCompiledPolicy, "origin" | keyof DocumentHead>
  | Omit<DeletingCompiledPolicy, "origin" | keyof DocumentHead>
  | Omit<ImageValidatingCompiledPolicy, "origin" | keyof DocumentHead>
  | Omit<UnsupportedCompiledPolicy, "origin" | keyof DocumentHead>;

/**
 * Whether the rule runs in the validate phase: validate rules, and verifyImages rules, whose checks
 * (verifyDigest, required) decide admission. verifyImages rules also run in the mutate phase
 * (`hasImageVerifyRules`): signatures, digests and the verify-images annotation.
 */
export function isValidatePhaseRule(r: CompiledRule): boolean {
  return r.rule.validate !== undefined || r.rule.verifyImages !== undefined;
}

/** A verifyImages rule that is neither validate nor mutate: the mutate phase runs it after the mutate rules. */
function isImageVerifyOnlyRule(r: CompiledRule): boolean {
  return (r.rule.verifyImages?.length ?? 0) > 0 && r.rule.validate === undefined && r.rule.mutate === undefined;
}

/** The phases a kyverno.io policy's compiled rules take part in (the head's `phases`). */
export function kyvernoRulePhases(rules: readonly CompiledRule[]): PolicyPhase[] {
  const phases: PolicyPhase[] = [];
  if (rules.some(isValidatePhaseRule)) phases.push("validate");
  if (rules.some((r) => r.rule.mutate !== undefined)) phases.push("mutate");
  if (rules.some(isImageVerifyOnlyRule)) phases.push("verifyImages");
  if (rules.some((r) => r.rule.generate !== undefined)) phases.push("generate");
  return phases;
}

export function hasValidateRules(p: CompiledPolicy): boolean {
  return p.phases.includes("validate");
}

export function hasMutateRules(p: CompiledPolicy): boolean {
  return p.phases.includes("mutate");
}

/** Whether the policy has verifyImages rules, which the mutate phase runs after its mutate rules. */
export function hasImageVerifyRules(p: CompiledPolicy): boolean {
  return p.phases.includes("verifyImages");
}

export function hasGenerateRules(p: CompiledPolicy): boolean {
  return p.phases.includes("generate");
}

/**
 * The policy as one of Kyverno's two mutation passes runs it: Kyverno runs every policy's mutate
 * rules, then every policy's verifyImages rules, each pass its own response (the CLI's
 * ApplyPoliciesOnResource; the mutating webhook's HandleMutation, then its image verification). A
 * kyverno.io policy keeps only that pass's rules (and applyRules applies within the pass, as
 * Kyverno's Mutate and VerifyAndPatchImages each apply it); a policy of another language is itself.
 */
export function mutationPassOf<P extends CompiledPolicy>(policy: P, pass: "mutate" | "verifyImages"): P {
  if (policy.language !== "kyverno") return policy;
  // Built once per compiled policy and pass: `apply` asks for every resource.
  const known = mutationPasses.get(policy) ?? {};
  let part = known[pass];
  if (part === undefined) {
    const rules = policy.rules.filter(pass === "mutate" ? (r) => r.rule.mutate !== undefined : isImageVerifyOnlyRule);
    part = { ...policy, rules, phases: kyvernoRulePhases(rules) };
    mutationPasses.set(policy, { ...known, [pass]: part });
  }
  return part as P;
}

const mutationPasses = new WeakMap<
  KyvernoCompiledPolicy,
  { readonly mutate?: KyvernoCompiledPolicy; readonly verifyImages?: KyvernoCompiledPolicy }
>();

/**
 * The failure action a policy of another language than kyverno.io decided at compile time: a kind
 * Bylaw does not run, its body's; a ValidatingPolicy or ValidatingAdmissionPolicy, its body's;
 * undefined for a kyverno.io policy (its rules, overrides and namespace decide:
 * pipeline/failure-action.ts) and for the kinds whose results carry no failure action.
 */
export function compiledAction(policy: CompiledPolicy): "Audit" | "Enforce" | undefined {
  if (policy.language === "unsupported") return policy.unsupported.action;
  return policy.language === "cel" ? policy.validating.action : undefined;
}

/** A kyverno.io policy's `spec.webhookConfiguration.matchConditions`, compiled; none for a policy of another language. */
export function webhookMatchConditions(policy: CompiledPolicy): readonly CompiledMatchCondition[] {
  return policy.language === "kyverno" ? (policy.matchConditions ?? []) : [];
}

/** A kyverno.io policy's compiled rules (autogen copies included); none for a policy of another language. */
export function kyvernoCompiledRules(policy: CompiledPolicy): readonly CompiledRule[] {
  return policy.language === "kyverno" ? policy.rules : [];
}

/** A kyverno.io policy's rules as written (autogen copies not included); none for a policy of another language. */
export function kyvernoRulesOf(policy: CompiledPolicy): readonly Rule[] {
  return policy.language === "kyverno" ? (policy.document.spec.rules ?? []) : [];
}

/** The policy's own `spec`, as JSON ({} when it has none), whatever its kind. */
export function policySpec(policy: CompiledPolicy): JsonObject {
  const spec = policy.language === "kyverno" ? (policy.document.spec as unknown as JsonValue) : policy.document["spec"];
  return isObject(spec) ? spec : {};
}
