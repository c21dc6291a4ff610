/**
 * The CEL a policy's evaluation ran, body by body: the kind's own evaluation (kinds/evaluation.ts)
 * run once more, on a copy of the policy whose programs record what they gave (traced-body.ts).
 * Every CEL kind is traced this way (ValidatingPolicy, ValidatingAdmissionPolicy with or without
 * params, MutatingPolicy, GeneratingPolicy, DeletingPolicy, ImageValidatingPolicy, a kyverno.io
 * rule's celPreconditions and validate.cel), so a trace cannot differ from the evaluation it
 * explains. Runs only for an explanation.
 */
import { err } from "../api/result.js";
import type { ExistingResources } from "../generate/index.js";
import { evaluationOf } from "../kinds/evaluation.js";
import type { PreparedRequest } from "../pipeline/prepared-request.js";
import type { EngineEnv, PolicyResponse } from "../pipeline/types.js";
import type { CompiledPolicy, CompiledRule } from "../policy/compiled-policy.js";
import { StepRecorder, tracedBody } from "./traced-body.js";

/** The phase whose evaluation is traced: the one that gave the policy's results. */
type TracedPhase = "validate" | "mutate" | "generate";

export interface BodyTraces {
  /**
   * One recorder per body, in the order the explanation lists them: per rule of `policy.rules`
   * (kyverno.io policies, ValidatingPolicy, ValidatingAdmissionPolicy; undefined for a rule with no
   * CEL), else per matchConstraints of the policy's head (policy-match.ts `policyMatchOf`), else
   * a MutatingAdmissionPolicy's one body.
   */
  readonly bodies: readonly (StepRecorder | undefined)[];
  /** What each traced phase answered (a mutate phase's patched resource). */
  readonly responses: { readonly [P in TracedPhase]?: PolicyResponse };
}

/** A kyverno.io rule's compiled CEL, as the rule writes it. */
const CEL_RULE_LABELS = { preconditions: "celPreconditions", validations: "validate.cel.expressions" };
/** A ValidatingAdmissionPolicy's compiled body is its spec. */
const ADMISSION_LABELS = { body: "" };

/** Generate is explained offline: whatever a body would read from the cluster is not read again. */
const NOT_READ: ExistingResources = {
  get: () => err("not-read", "existing resources are not read while explaining"),
  list: () => err("not-read", "existing resources are not read while explaining"),
};

/** Each phase that gave the policy results, with the request that phase was given. */
type TracedRuns = readonly { readonly phase: TracedPhase; readonly request: PreparedRequest }[];

export function traceBodies(policy: CompiledPolicy, runs: TracedRuns, env: EngineEnv): BodyTraces | undefined {
  const copy = tracedPolicy(policy);
  if (copy === undefined) return undefined;
  const evaluation = evaluationOf(copy.policy);
  const responses: { -readonly [P in TracedPhase]?: PolicyResponse } = {};
  for (const { phase, request } of runs)
    responses[phase] =
      phase === "validate"
        ? evaluation.validate(copy.policy, request, env)
        : phase === "mutate"
          ? evaluation.mutate(copy.policy, request, env)
          : evaluation.generate(copy.policy, request, env, NOT_READ);
  return { bodies: copy.bodies, responses };
}

function tracedPolicy(
  policy: CompiledPolicy,
): { policy: CompiledPolicy; bodies: (StepRecorder | undefined)[] } | undefined {
  const bodies: (StepRecorder | undefined)[] = [];
  const recorder = (): StepRecorder => {
    const r = new StepRecorder();
    bodies.push(r);
    return r;
  };
  switch (policy.language) {
    case "kyverno": {
      if (!policy.rules.some((r) => r.cel !== undefined)) return undefined;
      const rules = policy.rules.map((rule): CompiledRule => {
        if (rule.cel === undefined) {
          bodies.push(undefined);
          return rule;
        }
        return { ...rule, cel: tracedBody(rule.cel, recorder(), CEL_RULE_LABELS) };
      });
      return { policy: { ...policy, rules }, bodies };
    }
    case "cel": {
      const programs = policy.validating.programs.map((p) => ({
        ...p,
        program: tracedBody(p.program, recorder(), p.program.kind === "admission-policy" ? ADMISSION_LABELS : {}),
      }));
      return { policy: { ...policy, validating: { ...policy.validating, programs } }, bodies };
    }
    case "mutating": {
      // A MutatingAdmissionPolicy's one body: matchConditions, variables and mutations, once per binding that ran.
      const ap = policy.mutatingAdmission;
      if (ap !== undefined)
        return { policy: { ...policy, mutatingAdmission: { ...ap, body: tracedBody(ap.body, recorder()) } }, bodies };
      return { policy: { ...policy, mutating: policy.mutating.map((b) => tracedBody(b, recorder())) }, bodies };
    }
    case "generating":
      return { policy: { ...policy, generating: tracedBody(policy.generating, recorder()) }, bodies };
    case "deleting":
      return { policy: { ...policy, deleting: tracedBody(policy.deleting, recorder()) }, bodies };
    case "image-validating": {
      // The policy's own body, then each autogen copy, as its head lists their matchConstraints.
      const own = tracedBody({ ...policy.imageValidating, autogen: [] }, recorder());
      const autogen = policy.imageValidating.autogen.map((b) => tracedBody(b, recorder()));
      return { policy: { ...policy, imageValidating: { ...own, autogen } }, bodies };
    }
    case "unsupported":
      return undefined;
  }
}

/**
 * The phases that gave a policy's results, in the order they run. A kyverno.io policy's rules each
 * run in one phase, so each is traced; the CEL kinds' bodies run in every phase they take part in
 * (an ImageValidatingPolicy validates, then pins digests in mutate), so only the first is traced,
 * lest one body's trace hold each of its expressions twice.
 */
export function phasesOf(results: readonly { readonly type: string }[], everyPhase: boolean): TracedPhase[] {
  const phases: TracedPhase[] = [];
  if (results.some((r) => r.type === "Validation" || r.type === "ImageVerify" || r.type === "Deletion"))
    phases.push("validate");
  if (results.some((r) => r.type === "Mutation")) phases.push("mutate");
  if (results.some((r) => r.type === "Generation")) phases.push("generate");
  return everyPhase ? phases : phases.slice(0, 1);
}
