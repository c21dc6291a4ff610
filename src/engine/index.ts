/**
 * The engine's front door: the one module that code outside src/engine (the CLI, the webhook
 * server, the library, platform adapters, and later the cluster controllers) imports. Lint fails
 * on any other import of src/engine from outside it (eslint.config.js, `bylaw/engine-front-door`).
 *
 * Each name here is chosen: what a caller of the engine needs, not every export of every module.
 * An outer layer that wants more asks for it here, so the engine's surface stays one list.
 */

// The shapes every layer shares (engine/api imports nothing above it).
export { isObject, type JsonObject, type JsonValue, textOf } from "./api/json.js";
export { jsonEqual } from "./api/json-equal.js";
export { cloneJson } from "./api/json-copy.js";
export { setOwn } from "./api/set-own.js";
export { err, ok, type EngineError, type Result } from "./api/result.js";
export { guessedPlural } from "./api/guessed-plural.js";
export {
  parseApiVersion,
  resourceApiVersion,
  resourceKind,
  resourceLabels,
  resourceName,
  resourceNamespace,
  requestSubject,
  type GroupVersionKind,
  type Operation,
  type RequestUserInfo,
  type Resource,
} from "./api/resource.js";
export type {
  FailureAction,
  FailureActionOverride,
  LabelSelector,
  MatchResources,
  PolicyDocument,
  Rule,
} from "./api/policy.js";
export type { RuleResult, RuleStatus, RuleType } from "./api/rule-result.js";
export type { ExplainedConditions, FailedAt, PolicyExplanation, RuleExplanation } from "./explain/types.js";
export { explanationText } from "./explain/explanation-text.js";
export type { GeneratedResource, SourceRef } from "./api/generated-resource.js";
export { problem, type PolicyProblem } from "./api/problem.js";

// The engine and what it is built from: ports in, one instance per caller.
export { createEngine, type Engine, type RequestInput } from "./engine.js";
export type { PreparedRequest } from "./pipeline/prepared-request.js";
export type {
  ApiCallRequest,
  CertificateCheck,
  Clock,
  ContextCaller,
  ContextSources,
  EnginePorts,
  Hasher,
  HostResolver,
  ImageDataRequest,
  ImageSignatures,
  Interruption,
  ParamKind,
  Random,
  ResourceList,
  ResourceRead,
  SignatureCheck,
  SignatureVerifier,
} from "./ports.js";
export { EvaluationInterrupted, isInterruption, TICKS_PER_CHECK } from "./interrupt/index.js";
export { httpAnswer } from "./cel/kyverno/http-answer.js";

// A request and what the engine answers.
export type { EngineEnv, EngineRequest, PolicyResponse } from "./pipeline/types.js";
// What a rule's result shows in a PolicyReport, and the reports built from responses (apply -p, webhook, scans).
export { reportResult } from "./reports/report-result.js";
export { buildPolicyReports } from "./reports/policy-report.js";
export { buildCliReports } from "./reports/cli-reports.js";
// The names near a mistyped one, for "did you mean" hints outside the engine (test files, flags).
export { nearNames } from "./policy/schema/did-you-mean.js";
export {
  BYLAW_REPORT_LABEL,
  buildResourceReport,
  inReportFormat,
  reportKind,
  type ReportFormat,
} from "./reports/resource-report.js";
export type { MutationResult } from "./pipeline/mutate-request.js";
export type { ExistingResources } from "./generate/index.js";
export { applyJsonPatch, createJsonPatch, type JsonPatchOp } from "./mutate/json-patch/index.js";
export {
  builtinTypedKinds,
  offlineTypedKinds,
  typedKindsOf,
  mergeTypedSchemaData,
  typedKindsWithCrds,
  typedSchemaFromOpenApi,
  typedSchemaWithCrds,
  type TypedKinds,
  type TypedSchemaData,
} from "./mutate/typed/index.js";
// How a values key (`annotations."a.b/c"`) splits into path segments, for the CLI's values files.
export { splitVariableKey, type SplitKey } from "./context/variable-key.js";

// Compiled policies and PolicyExceptions, and what callers ask of them.
export type { CompileOptions, CompileOutcome } from "./policy/compile-policy.js";
export {
  hasGenerateRules,
  hasImageVerifyRules,
  hasMutateRules,
  mutationPassOf,
  hasValidateRules,
  kyvernoRulesOf,
  kyvernoCompiledRules,
  webhookMatchConditions,
  compiledAction,
  policySpec,
  type CompiledPolicy,
  type CompiledRule,
} from "./policy/compiled-policy.js";
export type { PolicyOrigin } from "./policy/compiled-policy.js";
// The one kind registry (ADR 0005): what a document is, and what each policy kind is.
export { classify, kindDescriptor, POLICY_KINDS } from "./kinds/registry.js";
export { policyMatchNames, policyMatchOf, type PolicyMatch } from "./kinds/policy-match.js";
export { namespaceLabelsNeeded } from "./kinds/namespace-labels-needed.js";
export type {
  Classification,
  PolicyKindDescriptor,
  PolicyKindName,
  PolicyLanguage,
  PolicyPhase,
} from "./kinds/types.js";
export { verifyImagesAction } from "./policy/static-action.js";
export { VERIFY_IMAGES_ANNOTATION, imageVerifyGaps } from "./verify-images/index.js";
export { effectiveAction, resultAction } from "./pipeline/failure-action.js";
export { isMutateExisting } from "./pipeline/mutate-policy.js";
export { mutateExistingRuleNames, mutateExistingScanView, mutateExistingView } from "./kinds/mutate-existing.js";
export { readsTypedKinds } from "./kinds/mutating/reads-typed-kinds.js";
export { mutationScanResponse, scansMutation } from "./kinds/mutating/scan-response.js";
export { downstreamRuleLabel } from "./kinds/generating/downstream-rule.js";
export {
  backgroundWrites,
  cleanupDeletes,
  type BackgroundWrite,
  type WrittenThing,
} from "./kinds/background-writes.js";
export { reinvokedIfNeeded } from "./kinds/mutating/reinvocation.js";
export { parseKindSelector } from "./match/kind-selector.js";
export { indexPolicies, type CandidateIndex } from "./candidates/candidate-index.js";
export { blockKinds } from "./match/block-kinds.js";
export { clusterKindProblems } from "./match/namespaced-block.js";
export { compileException, type CompiledException } from "./exceptions/index.js";
export { isCelException, type AnyCompiledException, type CompiledCelException } from "./exceptions/cel/index.js";
export { asJsonPayload, runsOnJson } from "./pipeline/validate-json.js";
export type { JsonPayloadRequest } from "./pipeline/types.js";
export { isAuthzPolicy, runsOnAuthz, type AuthzRequest } from "./pipeline/validate-authz.js";
export { decodeCheckRequest as decodeHttpRequest } from "./cel/kyverno/http-request.js";
export { decodeEnvoyRequest } from "./cel/kyverno/envoy-authz.js";
export type { CompileAnyExceptionOutcome } from "./engine.js";

// Go durations (time.ParseDuration), for CRD fields such as refreshInterval and for duration flags.
export { formatDuration, parseDurationMillis, parseDurationOrError, type DurationOptions } from "./values/duration.js";

// Kyverno's wildcard strings (go-wildcard: `*` any run, `?` one character), compiled once.
export { compileWildcard, type WildcardMatcher } from "./pattern/wildcard-matcher.js";

// How sigs.k8s.io/yaml prints a float map key, for the YAML reader.
export { float32MapKey } from "./go/format-float32.js";

// JMESPath in Kyverno's dialect, for `bylaw jp`.
export { formatAst, goJsonMarshal, type FunctionDef } from "./jmespath/index.js";
export { kyvernoFunctions } from "./jmespath/functions/kyverno/index.js";

// CEL in Kyverno's environment (ADR 0010), for `bylaw cel`.
export { createCel, fromCel, toCel, type CelActivation, type CelEngine } from "./cel/index.js";
export { type CompiledValidatingPolicy, type ResourceRule as CelResourceRule } from "./cel/validating-policy/index.js";
export { celAutogenStatus } from "./cel/autogen-status.js";
// Kubernetes' name validations (apimachinery), for names the server writes into webhook configurations.
export { dns1123Subdomain, qualifiedName } from "./cel/libraries/name-validation.js";
export { labelSelectorProblems } from "./match/label-selector-problems.js";

// Kubernetes ValidatingAdmissionPolicy bindings, which compile with the policy they name (engine.compile's `bindings`).
export { compileBinding as compileAdmissionBinding, isAdmissionBindingDocument } from "./cel/admission-policy/index.js";
// Why a policy of a kind Bylaw does not run (a cleanup policy) is refused by the policy webhook.
export { notServedReason } from "./policy/unsupported-kind.js";

// The cleanup controller's decisions (CleanupPolicy / ClusterCleanupPolicy, the cleanup.kyverno.io/ttl label).
export {
  cleanupDecision,
  compileCleanupPolicy,
  TTL_LABEL,
  TTL_PROPAGATION_ANNOTATION,
  ttlDeadline,
  type CleanupCandidate,
  type CompiledCleanupPolicy,
  type DeletionPropagation,
} from "./cleanup/index.js";
export { deletingPolicyVerdict } from "./kinds/deleting/policy-verdict.js";
