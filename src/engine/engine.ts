/**
 * The engine facade: one JMESPath interpreter with Kyverno's functions, the ports, and the calls
 * the CLI, the webhook and the controllers share. Everything an engine keeps (its matchers, its
 * interruption meter) is its own: two engines in one process share nothing mutable. The CEL
 * environments are shared by all engines (cel/shared-cel.ts): they are only read once built.
 */
import type { JsonValue } from "./api/json.js";
import { sharedJmesPath } from "./jmespath/shared-jmespath.js";
import { sharedCel, type CelEngine } from "./cel/index.js";
import type { ExistingResources } from "./generate/index.js";
import { MatcherCache } from "./match/shared-match.js";
import { mutateRequest, type MutationResult } from "./pipeline/mutate-request.js";
import { PreparedRequest, prepareRequest } from "./pipeline/prepared-request.js";
import { validateJsonPayload } from "./pipeline/validate-json.js";
import { validateAuthzPayload, type AuthzRequest } from "./pipeline/validate-authz.js";
import type { EngineEnv, EngineRequest, JsonPayloadRequest, PolicyResponse } from "./pipeline/types.js";
import type { CompileEnv, CompileOptions, CompileOutcome } from "./policy/compile-policy.js";
import { compileDocument } from "./kinds/compile.js";
import { evaluationOf } from "./kinds/evaluation.js";
import { classify } from "./kinds/registry.js";
import type { Classification } from "./kinds/types.js";
import type { CompiledPolicy } from "./policy/compiled-policy.js";
import { beginInterruptible, endInterruptible, Meter } from "./interrupt/index.js";
import type { EnginePorts, Interruption } from "./ports.js";
import type { PolicyProblem } from "./api/problem.js";
import { compileException } from "./exceptions/index.js";
import { compileCelException, type AnyCompiledException } from "./exceptions/cel/index.js";
import { explainPolicy, type ExplainOptions } from "./explain/explain-policy.js";
import type { PolicyExplanation } from "./explain/types.js";
import type { RuleResult } from "./api/rule-result.js";

export type CompileAnyExceptionOutcome =
  | { readonly ok: true; readonly exception: AnyCompiledException }
  | { readonly ok: false; readonly problems: readonly PolicyProblem[] };

/** A request to evaluate: as given, or prepared once (`engine.prepare`) for many policies. */
export type RequestInput = EngineRequest | PreparedRequest;

export interface Engine {
  readonly env: EngineEnv;
  /** What a document is: a policy (with its kind's descriptor), an exception, a binding, or not a policy (kinds/registry.ts). */
  classify(doc: JsonValue | undefined): Classification;
  /** Parse, check and compile one policy document (once; evaluation never re-parses), by its kind. */
  compile(doc: JsonValue, options?: CompileOptions): CompileOutcome;
  /**
   * Compile one PolicyException document, of either kind: kyverno.io/v2 (v2beta1) or
   * policies.kyverno.io (its CEL matchConditions compiled here, in the CEL kinds' environment).
   * `source` (file and document) is kept for messages.
   */
  compileException(doc: JsonValue, source?: string): CompileAnyExceptionOutcome;
  /**
   * The request prepared for evaluation: its subject, operation, base context and match decisions,
   * worked out once for every policy evaluated against it. The request itself is never written to.
   * A plain request passed to `validate`, `mutate` or `generate` is prepared for that call alone.
   */
  prepare(request: EngineRequest): PreparedRequest;
  /**
   * Run a policy's validate rules against one request. With an `interruption`, a long evaluation
   * may stop by throwing an `EvaluationInterrupted` (engine/interrupt) instead of answering.
   */
  validate(policy: CompiledPolicy, request: RequestInput, interruption?: Interruption): PolicyResponse;
  /**
   * Run a policy's mutate rules against one request; the response carries the patched resource.
   * Mutate-existing rules patch targets found in `existing`; their results carry the patched targets.
   */
  mutate(
    policy: CompiledPolicy,
    request: RequestInput,
    existing?: ExistingResources,
    interruption?: Interruption,
  ): PolicyResponse;
  /**
   * Run a JSON-mode ValidatingPolicy (spec.evaluation.mode JSON) against one JSON payload that is
   * not a Kubernetes object. Any other policy never runs on a payload: its response has no rules.
   */
  validateJson(policy: CompiledPolicy, request: JsonPayloadRequest): PolicyResponse;
  /**
   * Run an HTTP-mode (Envoy-mode) ValidatingPolicy against one HTTP request (Envoy check):
   * `decodeHttpRequest` (`decodeEnvoyRequest`) reads it from a payload. Any other policy, one of the
   * other mode too, never runs on one: its response has no rules.
   */
  validateAuthz(policy: CompiledPolicy, request: AuthzRequest): PolicyResponse;
  /** Every mutate policy in order on one request, and the net change as an RFC 6902 patch (the webhook's answer). */
  mutateAll(policies: readonly CompiledPolicy[], request: EngineRequest, existing?: ExistingResources): MutationResult;
  /** Run a policy's generate rules: what each would create (clone sources come from `existing`). */
  generate(policy: CompiledPolicy, request: RequestInput, existing: ExistingResources): PolicyResponse;
  /**
   * How a policy's results on one request came about, rule by rule (`--explain`): the clause that
   * matched or excluded, exceptions, context values, preconditions, and what failed. `results` are
   * the rule results its evaluation gave for this request; `options.mutateInput`, the resource its
   * mutate phase was given when that is not the request's. Built only when asked.
   */
  explain(
    policy: CompiledPolicy,
    request: RequestInput,
    results: readonly RuleResult[],
    options?: ExplainOptions,
  ): PolicyExplanation;
}

export function createEngine(ports: EnginePorts): Engine {
  // Read-only and shared by every engine of the process (jmespath/shared-jmespath.ts).
  const jmespath = sharedJmesPath();
  const env: EngineEnv = { jmespath, ports, fnctx: { ports } };
  // The CEL environments, built when the first CEL rule of the process compiles (~6 ms each).
  const celPolicies = (namespaced: boolean): CelEngine => sharedCel(namespaced ? "namespaced" : "cluster");
  const compileEnv: CompileEnv = {
    jmespath,
    matchers: new MatcherCache(),
    cel: () => sharedCel("kubernetes"),
    celPolicies,
    celAuthz: (mode) => sharedCel(mode === "HTTP" ? "http-authz" : "envoy-authz"),
  };
  /** This engine's interruption count (engine/interrupt). */
  const meter = new Meter();
  return {
    env,
    classify,
    compile: (doc, options) => compileDocument(doc, compileEnv, options),
    compileException: (doc, source) =>
      classifiedException(doc) === "cel"
        ? compileCelException(doc, celPolicies(false), source)
        : compileException(doc, source),
    prepare: (request) => new PreparedRequest(request),
    validate: (policy, request, interruption) => {
      const began = beginInterruptible(meter, interruption);
      try {
        return evaluationOf(policy).validate(policy, prepareRequest(request), env);
      } finally {
        endInterruptible(began);
      }
    },
    mutate: (policy, request, existing, interruption) => {
      const began = beginInterruptible(meter, interruption);
      try {
        return evaluationOf(policy).mutate(policy, prepareRequest(request), env, existing);
      } finally {
        endInterruptible(began);
      }
    },
    validateJson: (policy, request) => validateJsonPayload(policy, request, env),
    validateAuthz: (policy, request) => validateAuthzPayload(policy, request, env),
    mutateAll: (policies, request, existing) => mutateRequest(policies, request, env, existing),
    generate: (policy, request, existing) =>
      evaluationOf(policy).generate(policy, prepareRequest(request), env, existing),
    explain: (policy, request, results, options) => explainPolicy(policy, request, results, { ...options, env }),
  };
}

function classifiedException(doc: JsonValue): "kyverno" | "cel" | undefined {
  const c = classify(doc);
  return c.role === "exception" ? c.language : undefined;
}
