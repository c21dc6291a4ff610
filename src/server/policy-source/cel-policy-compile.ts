/**
 * How `bylaw serve` compiles a policies.kyverno.io policy document, the same in folder mode
 * (compile-policy-set.ts) and cluster mode (cluster-object-compiler.ts), by the kind's handling
 * (kube/cel-policy-kinds.ts):
 * - ValidatingPolicy / NamespacedValidatingPolicy: the engine compiles it; an expression that does
 *   not compile, or a feature Bylaw does not run (JSON mode, params), is a problem: served, the
 *   policy would enforce nothing. The server's own checks (`check`) apply after.
 * - MutatingPolicy / ImageValidatingPolicy (and Namespaced): the same, each through its own body
 *   (kinds/mutating/, kinds/image-validating/); an expression that does not compile is a problem.
 * - GeneratingPolicy (and Namespaced): compiled as `bylaw apply` compiles it; an expression that does
 *   not compile is a problem (nothing would be generated). It decides no request: an allowed review
 *   it matches becomes generate work (server/admission/generate-work.ts).
 * - DeletingPolicy (and Namespaced): not served here (the cleanup controller runs it).
 * A served CEL policy's spec (`celSpecOf`, the engine's `policySpec`) tells the live context which caches
 * its `resource.Get/List` calls read before the first review.
 */
import {
  type CompiledPolicy,
  type Engine,
  isObject,
  type JsonObject,
  kindDescriptor,
  policySpec,
  type PolicyProblem,
  problem,
} from "../../engine/index.js";
import { celKindInfo } from "../../kube/cel-policy-kinds.js";
import { compileGuarded } from "../../platform/policy-documents/index.js";

interface CelCompiled {
  readonly policy?: CompiledPolicy;
  /** Errors: the policy is not served. Empty when `policy` is set. */
  readonly problems: readonly PolicyProblem[];
}

/**
 * The spec of a policies.kyverno.io policy (for the live caches it reads, its webhook's fields): the
 * engine's `policySpec`, its own document's; undefined for the other groups' kinds (kyverno.io, VAP).
 */
export function celSpecOf(policy: CompiledPolicy): JsonObject | undefined {
  return celKindInfo(policy.origin.kind.kind) !== undefined ? policySpec(policy) : undefined;
}

/** The policies this function compiled: a worker rebuilds them through it (the server's checks apply). */
const compiledHere = new WeakSet<CompiledPolicy>();

/** Whether `compileCelPolicy` compiled the policy (the server's variant), not the engine directly. */
export function servedVariant(policy: CompiledPolicy): boolean {
  return compiledHere.has(policy);
}

export function compileCelPolicy(
  doc: JsonObject,
  engine: Engine,
  check?: (policy: CompiledPolicy) => readonly PolicyProblem[],
): CelCompiled {
  const kind = typeof doc["kind"] === "string" ? doc["kind"] : "";
  const info = celKindInfo(kind);
  if (info === undefined) return { problems: [problem("kind", `${kind} is not a policies.kyverno.io policy kind`)] };
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  if (info.handling === "not-evaluated" || info.handling === "cleanup")
    return { problems: [problem("kind", notEvaluatedMessage(kind, name))] };
  const outcome = compileGuarded(engine, doc);
  if (!outcome.ok) return { problems: errorsOf(outcome.problems) };
  const compiled = outcome.policy;
  const unrunnable = celUnrunnable(compiled);
  if (unrunnable.length > 0) return { problems: unrunnable };
  compiledHere.add(compiled);
  const unfit = check?.(compiled) ?? [];
  if (unfit.length > 0) return { problems: [...unfit] };
  return { policy: compiled, problems: [] };
}

/** Why a kind is not served: its descriptor's reason when Bylaw runs it elsewhere (a GeneratingPolicy runs offline), else that Bylaw does not evaluate it. */
export function notEvaluatedMessage(kind: string, name: string): string {
  const descriptor = kindDescriptor(kind);
  if (descriptor !== undefined && descriptor.language !== "unsupported" && descriptor.notServed !== undefined)
    return `${kind} ${name} is not served: ${descriptor.notServed}`;
  return `${kind} ${name} is not served: Bylaw does not evaluate ${kind} yet`;
}

/**
 * A ValidatingPolicy whose expression does not compile, or that uses what Bylaw does not run, still
 * compiles for `bylaw apply` (each resource gets the error); served, it would enforce nothing, so it
 * is a problem, with the engine's message (policy, field, position).
 */
function celUnrunnable(policy: CompiledPolicy): PolicyProblem[] {
  // A MutatingPolicy whose expression does not compile (or that asks what Bylaw does not run) would mutate nothing.
  // An ImageValidatingPolicy whose expression does not compile would verify nothing.
  if (policy.language === "image-validating") {
    const failure = policy.imageValidating.failure;
    return failure === undefined ? [] : [problem("spec", `${policy.kind} ${policy.name}: ${failure}`)];
  }
  if (policy.language === "mutating") {
    // The first: an autogen copy's is most often the same expression's, rewritten.
    const failure = policy.mutating.find((b) => b.failure !== undefined)?.failure;
    return failure === undefined ? [] : [problem("spec", failure)];
  }
  if (policy.language === "generating") {
    const failure = policy.generating.failure;
    return failure === undefined ? [] : [problem("spec.generate", `${policy.kind} ${failure.replace(/^policy /, "")}`)];
  }
  if (policy.language !== "cel" || policy.validationActions === undefined) return [];
  const out: PolicyProblem[] = [];
  for (const { failure } of policy.validating.programs)
    if (failure !== undefined && !out.some((p) => p.message === failure)) out.push(problem("spec", failure));
  return out;
}

function errorsOf(problems: readonly PolicyProblem[]): PolicyProblem[] {
  const errors = problems.filter((p) => p.severity === "error");
  return errors.length > 0 ? errors : [problem("", "the policy does not compile")];
}
