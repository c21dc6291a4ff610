/**
 * `engine.explain`: how one policy's results on one resource came about, rule by rule. It asks the
 * same compiled parts the evaluation used (the matcher, the exceptions, the context loader, the
 * compiled conditions, a CEL policy's programs) and takes each rule's result from the evaluation
 * itself, so the explanation never contradicts it. It runs only when asked: evaluation without it
 * does nothing more than before.
 */
import type { JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { ContextEntry } from "../api/policy.js";
import type { JsonPatchOp } from "../mutate/json-patch/index.js";
import { resourceKind, resourceName, resourceNamespace, type Resource } from "../api/resource.js";
import type { RuleResult } from "../api/rule-result.js";
import { traceConditions } from "../conditions/index.js";
import { loadContextEntries } from "../context/load-entries.js";
import { splitVariableKey } from "../context/variable-key.js";
import { exceptionCovers, exceptionPolicyKey, type CompiledException } from "../exceptions/index.js";
import { isCelException } from "../exceptions/cel/index.js";
import { EXCEPTION_RULE } from "../cel/validating-policy/index.js";
import { celExceptionsConsidered } from "./cel-exceptions.js";
import type { CompiledPolicy, CompiledRule, KyvernoCompiledPolicy } from "../policy/compiled-policy.js";
import { verdictDecision, type MatchDecision, type MatchRequest } from "../match/index.js";
import { policyMatchOf, type PolicyMatch } from "../kinds/policy-match.js";
import type { CompiledMutatingAdmissionPolicy } from "../cel/mutating-admission-policy/index.js";
import { prepareRequest, type PreparedRequest } from "../pipeline/prepared-request.js";
import { exceptionsFor, startScope, type RuleRun } from "../pipeline/rule-scope.js";
import type { EngineEnv, EngineRequest } from "../pipeline/types.js";
import { substituteAll, type SubstitutionScope } from "../variables/index.js";
import { preview } from "./preview.js";
import type { PolicyExplanation, RuleExplanation } from "./types.js";
import { explained } from "./explained-conditions.js";
import { explainForEach } from "./foreach-trace.js";
import { explainAnyPattern, failedAt } from "./pattern-failure.js";
import { phasesOf, traceBodies, type BodyTraces } from "./body-traces.js";
import { patchBetween, rulePatches } from "./rule-patches.js";
import type { StepRecorder } from "./traced-body.js";

/** What the explanation is given besides the request its validate rules saw. */
export interface ExplainOptions {
  /**
   * The resource the policy's mutate phase was given, when it is not the request's: a run that
   * mutates, then validates, explains on the resource after every mutate policy, while a mutate
   * rule's patch is what it did to the resource it saw.
   */
  readonly mutateInput?: Resource;
}

/** `results`: every rule result the evaluation gave this policy on this request (validate, mutate, generate). */
export function explainPolicy(
  policy: CompiledPolicy,
  request: EngineRequest | PreparedRequest,
  results: readonly RuleResult[],
  run: ExplainOptions & { readonly env: EngineEnv },
): PolicyExplanation {
  const { env, mutateInput } = run;
  const prepared = prepareRequest(request);
  const mutateRequest = mutateInput === undefined ? prepared : prepared.withResource(mutateInput);
  const req = prepared.matchContext(policy).req;
  const head = policyMatchOf(policy);
  const phases = phasesOf(results, head.language === "kyverno");
  const runs = phases.map((phase) => ({ phase, request: phase === "mutate" ? mutateRequest : prepared }));
  const traces = traceBodies(policy, runs, env);
  const patches = phases.includes("mutate") ? rulePatches(policy, mutateRequest, env) : NO_PATCHES;
  const left = [...results];
  const kyverno = policy.language === "kyverno" ? policy : undefined;
  const rules: RuleExplanation[] =
    kyverno === undefined
      ? []
      : kyverno.rules.map((rule, i) => {
          const match = rule.matcher.explain(req);
          const mine = left.filter((r) => r.rule === rule.name);
          for (const r of mine) left.splice(left.indexOf(r), 1);
          if (!match.matched) return { rule: rule.name, match, results: mine };
          const explained = explainMatched({ policy: kyverno, rule, prepared, env }, match, mine);
          const patch = patches.get(rule.name);
          return withTrace({ ...explained, ...(patch !== undefined ? { patch } : {}) }, traces?.bodies[i]);
        });
  rules.push(...explainPrograms(policy, req, left, traces));
  rules.push(...explainBodies({ policy, head, req, left }, traces));
  // A MutatingPolicy's (or MutatingAdmissionPolicy's) patch is its body's that passed (the policy patches as one).
  const mutated = traces?.responses.mutate?.patchedResource;
  if (policy.language === "mutating" && mutated !== undefined) {
    const patch = patchBetween(mutateRequest.request.resource, mutated);
    const body = rules.findIndex((r) => r.results.some((x) => x.type === "Mutation" && x.status === "pass"));
    if (body >= 0 && patch.length > 0) rules[body] = { ...(rules[body] as RuleExplanation), patch };
  }
  // Results no rule or body took are kept, never dropped from the explanation.
  for (const name of new Set(left.map((r) => r.rule)))
    rules.push({ rule: name, match: UNNAMED_MATCH, results: left.filter((r) => r.rule === name) });
  if (head.language === "cel") {
    const exceptions = celExceptionsConsidered(policy, prepared.request, results, env.ports.clock.nowMillis());
    if (exceptions.length > 0)
      for (const [i, r] of rules.entries()) if (r.rule === "" && r.match.matched) rules[i] = { ...r, exceptions };
  }
  return {
    policy: policy.namespace === "" ? policy.name : `${policy.namespace}/${policy.name}`,
    kind: policy.kind,
    resource: describe(prepared.subject),
    operation: prepared.operation,
    rules,
  };
}

/**
 * A ValidatingPolicy's or ValidatingAdmissionPolicy's programs (its own, then its autogen copies):
 * each explained by its match and the trace of its evaluation. A ValidatingPolicy's programs are all
 * named "": a program that matched takes the next result; its exemption by a PolicyException is its
 * result, under Kyverno's rule name "exception".
 */
function explainPrograms(
  policy: CompiledPolicy,
  req: MatchRequest,
  left: RuleResult[],
  traces: BodyTraces | undefined,
): RuleExplanation[] {
  if (policy.language !== "cel") return [];
  return policy.validating.programs.map((program, i) => {
    const name = program.resultName;
    const match = program.matcher.explain(req);
    const own = left.filter((r) => r.rule === name || (name === "" && r.rule === EXCEPTION_RULE));
    const mine = name === "" ? (match.matched ? own.slice(0, 1) : []) : own;
    for (const r of mine) left.splice(left.indexOf(r), 1);
    const row: RuleExplanation = { rule: name, match, results: mine };
    return match.matched ? withTrace(row, traces?.bodies[i]) : row;
  });
}

interface BodyRows {
  readonly policy: CompiledPolicy;
  readonly head: PolicyMatch;
  readonly req: MatchRequest;
  /** The results no rule took yet; a body that matched takes them all. */
  readonly left: RuleResult[];
}

/**
 * The rows of the kinds whose body is not held in rules: each matchConstraints of the head
 * (MutatingPolicy, GeneratingPolicy, DeletingPolicy, ImageValidatingPolicy), the first that selected
 * taking the results; a MutatingAdmissionPolicy's one body, selected by its bindings or, with none,
 * its matchConstraints.
 */
function explainBodies(rows: BodyRows, traces: BodyTraces | undefined): RuleExplanation[] {
  const { policy, head, req, left } = rows;
  const ap = policy.language === "mutating" ? policy.mutatingAdmission : undefined;
  const matches =
    ap !== undefined
      ? [admissionMatch(ap, req)]
      : policy.language !== "kyverno" && policy.language !== "cel" && head.language === "cel"
        ? head.constraints.map((c) => verdictDecision(c.decide(req), "spec.matchConstraints"))
        : [];
  return matches.map((match, i) => {
    const mine = match.matched ? left.splice(0) : [];
    const row: RuleExplanation = { rule: "", match, results: mine };
    return match.matched ? withTrace(row, traces?.bodies[i]) : row;
  });
}

/**
 * Whether a MutatingAdmissionPolicy applies, as its evaluation decides it
 * (cel/mutating-admission-policy/evaluate.ts): a bound policy by its bindings' matchResources (its
 * own matchConstraints are not consulted, as in Kyverno's CLI), an unbound one by its matchConstraints.
 */
function admissionMatch(ap: CompiledMutatingAdmissionPolicy, req: MatchRequest): MatchDecision {
  if (ap.bindings.length === 0) return verdictDecision(ap.body.constraints.decide(req), "spec.matchConstraints");
  const chosen = ap.bindings.filter((b) => b.constraints?.decide(req).kind !== "no-match").map((b) => b.name);
  const unconsulted = "the policy's own matchConstraints are not consulted once a binding names it";
  if (chosen.length === 0)
    return {
      matched: false,
      reason: `no binding's matchResources selected it (${ap.bindings.map((b) => b.name).join(", ")}); ${unconsulted}`,
      elsewhere: true,
    };
  return { matched: true, reason: `binding ${chosen.join(", ")} selected it (matchResources); ${unconsulted}` };
}

/** The CEL its body's evaluation ran, on a rule or body the evaluation reached. */
function withTrace(rule: RuleExplanation, recorder: StepRecorder | undefined): RuleExplanation {
  if (recorder === undefined || recorder.steps.length === 0) return rule;
  const cel = recorder.steps.map((s) => ({
    at: s.at,
    expression: s.expression,
    ...(s.error !== undefined ? { error: s.error } : { value: preview(s.value) }),
  }));
  return { ...rule, cel, ...(recorder.omitted > 0 ? { celOmitted: recorder.omitted } : {}) };
}

const NO_PATCHES: ReadonlyMap<string, readonly JsonPatchOp[]> = new Map();

/** The match shown for results whose rule name no compiled rule carries. */
const UNNAMED_MATCH = {
  matched: true,
  reason: "the evaluation gave these results; no rule of the policy has this name to explain them",
} as const;

interface Explaining {
  readonly policy: KyvernoCompiledPolicy;
  readonly rule: CompiledRule;
  readonly prepared: PreparedRequest;
  readonly env: EngineEnv;
}

function explainMatched(
  what: Explaining,
  match: RuleExplanation["match"],
  results: readonly RuleResult[],
): RuleExplanation {
  const { policy, rule, prepared, env } = what;
  const run: RuleRun = {
    policy,
    rule,
    type: results[0]?.type ?? "Validation",
    env,
    request: prepared,
    base: prepared.base(policy.usesImages),
  };
  const base = { rule: rule.name, match, results };
  return { ...base, ...explainSteps(run, results[0]) };
}

type Steps = Omit<RuleExplanation, "rule" | "match" | "results">;

/** A kyverno.io rule after its match: exceptions, context, preconditions, then what its handler checked. */
function explainSteps(run: RuleRun, result: RuleResult | undefined): Steps {
  const { policy, rule } = run;
  const out: { -readonly [K in keyof Steps]: Steps[K] } = {};
  const exceptions = explainExceptions(run);
  if (exceptions.length > 0) out.exceptions = exceptions;
  let scope = startScope(run);
  const context: readonly ContextEntry[] = rule.rule.context ?? [];
  if (context.length > 0) {
    const loaded = loadContextEntries(context, scope);
    if (!loaded.ok) return { ...out, context: { entries: [], error: loaded.error.message } };
    const { data, failed } = loaded.value;
    out.context = {
      entries: context.map((e) => {
        const failure = failed.find((f) => f.name === e.name);
        return {
          name: e.name,
          value: failure !== undefined ? `(not loaded: ${failure.message})` : preview(lookup(data, e)),
        };
      }),
    };
    scope = { ...scope, data, deferred: failed };
  }
  const pre = rule.rule.preconditions;
  if (pre !== undefined && pre !== null)
    out.preconditions = explained(traceConditions(policy.cache.conditions(pre, "preconditions"), substitute(scope)));
  const validate = rule.rule.validate;
  const handled = result !== undefined && result.status !== "skip";
  if (validate?.deny !== undefined && handled)
    out.deny = explained(
      traceConditions(policy.cache.conditions(validate.deny.conditions, "deny conditions"), substitute(scope)),
    );
  const subject = run.request.subject;
  if (Array.isArray(validate?.foreach) && handled)
    out.foreach = explainForEach(validate.foreach, {
      ruleName: rule.name,
      target: subject,
      vars: scope,
      patterns: policy.patterns,
    });
  else if (result?.path !== undefined) out.failedAt = failedAt(subject, validate?.pattern, result.path);
  if (Array.isArray(validate?.anyPattern) && handled)
    out.anyPattern = explainAnyPattern(validate.anyPattern, subject, scope, policy.patterns);
  return out;
}

function explainExceptions(run: RuleRun): { name: string; applied: boolean }[] {
  const all = run.request.request.exceptions ?? [];
  const key = exceptionPolicyKey(run.policy);
  const covering = all.filter(
    (e): e is CompiledException => !isCelException(e) && exceptionCovers(e, key, run.rule.name),
  );
  if (covering.length === 0) return [];
  const applied = new Set(exceptionsFor(run).map((e) => e.key));
  return covering.map((e) => ({ name: e.key, applied: applied.has(e.key) }));
}

function substitute(scope: SubstitutionScope): (v: JsonValue) => ReturnType<typeof substituteAll> {
  return (v) => substituteAll(v, scope);
}

/** A context entry's value in the loaded context, by its (dotted) name. */
function lookup(data: JsonValue, entry: ContextEntry): JsonValue | undefined {
  const split = splitVariableKey(entry.name);
  if (!split.ok) return undefined;
  let at: JsonValue | undefined = data;
  for (const segment of split.segments) at = isObject(at) ? at[segment] : undefined;
  return at;
}

function describe(resource: Resource): string {
  const namespace = resourceNamespace(resource);
  const name = resourceName(resource);
  return `${resourceKind(resource)} ${namespace === "" ? name : `${namespace}/${name}`}`;
}
