/**
 * One GeneratingPolicy against one trigger, as Kyverno's GeneratingPolicy engine answers
 * (pkg/cel/policies/gpol/engine): not matched by matchConstraints → no result; undecidable → error
 * "failed to execute matching: …"; matchConditions not all true → no result (an error in them is
 * "failed to evaluate policy: …"); then each `spec.generate` entry in order: an expression whose
 * `generator.Apply(namespace, objects)` calls ask for objects in a namespace, or a template whose
 * rendered documents are the objects asked for (template.ts). The result is named by
 * the policy and passes with "policy evaluated successfully", whether or not anything was asked for.
 * What was asked for is its `generated` (each object with its namespace set to the one asked for,
 * and the labels Kyverno puts on downstream); nothing is written here. A namespaced policy may only ask for
 * its own namespace (tenant-isolation.md rule 1): another is an error naming the policy.
 * `generator.Apply` is armed only while a generate expression runs (rule 5): a matchCondition that
 * calls it is an error. policies.kyverno.io PolicyExceptions naming the policy are decided after
 * matchConstraints, as a ValidatingPolicy's (validating-policy/exceptions.ts): a full exemption
 * answers skip (or pass, by its reportResult) with rule "exception" and generates nothing; a
 * partial one fills the `exceptions` variable; an exception's condition error is the policy's error.
 */
import { isObject, type JsonObject } from "../../api/json.js";
import { cloneJson } from "../../api/json-copy.js";
import type { GeneratedResource } from "../../api/generated-resource.js";
import type { Resource } from "../../api/resource.js";
import { ruleResult, type RuleResult } from "../../api/rule-result.js";
import { setOwn } from "../../api/set-own.js";
import { applyLabels, generatingLabels } from "../../generate/labels.js";
import type { MatchRequest } from "../../match/index.js";
import type { CelServices, GeneratorSink } from "../kyverno/index.js";
import { policyActivation } from "../lazy-variables.js";
import { CelFunctionError } from "../library.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../types.js";
import type { CelRuleInput } from "../validate-rule/index.js";
import type { CompiledGeneratingPolicy } from "./compiled.js";
import { exceptionRefusal, type CompiledCelException } from "../../exceptions/cel/index.js";
import { decideExceptions } from "../validating-policy/exceptions.js";
import { goQuote } from "../../go/quote.js";
import { renderTemplate, type CompiledTemplate, type EvaluatePlaceholder } from "./template.js";

/** Who asks: the policy (its namespace "" when cluster-wide) and the trigger the labels name. */
interface GeneratingCall {
  readonly name: string;
  readonly namespace: string;
  readonly trigger: Resource;
}

function result(call: GeneratingCall, status: RuleResult["status"], message: string): RuleResult {
  return ruleResult(call.name, "Generation", status, message);
}

const EVALUATION_FAILED = "failed to evaluate policy: ";

/** One evaluation's inputs: the trigger's match request and CEL input, the engine's services, who asks. */
interface GeneratingRun {
  readonly req: MatchRequest;
  readonly input: CelRuleInput;
  readonly services: CelServices;
  readonly call: GeneratingCall;
  /** The policies.kyverno.io PolicyExceptions that name the policy. */
  readonly exceptions?: readonly CompiledCelException[];
}

/** The `exceptions` variable, or the exemption's (or a condition error's) result. */
function exceptionsOf(run: GeneratingRun, budget: CostBudget): { allowed: JsonObject } | { result: RuleResult } {
  const exceptions = run.exceptions ?? [];
  if (exceptions.length === 0) return { allowed: { allowedImages: [], allowedValues: [] } };
  const { object, oldObject, request, namespaceObject } = run.input;
  const activation = { object, oldObject, request, namespaceObject };
  const decided = decideExceptions(exceptions, activation, "Fail", budget, run.services);
  if (decided.kind === "exempt") return { result: { ...decided.result, type: "Generation" } };
  if (decided.kind === "error") return { result: result(run.call, "error", `${EVALUATION_FAILED}${decided.message}`) };
  return { allowed: { allowedImages: [...decided.allowedImages], allowedValues: [...decided.allowedValues] } };
}

export function evaluateGeneratingPolicy(policy: CompiledGeneratingPolicy, run: GeneratingRun): RuleResult | undefined {
  const { req, input, services, call } = run;
  const verdict = policy.constraints.decide(req);
  if (verdict.kind === "no-match") return undefined;
  if (verdict.kind === "error") return result(call, "error", `failed to execute matching: ${verdict.message}`);
  if (policy.failure !== undefined) return result(call, "error", policy.failure);
  // Kyverno compiles the exceptions naming the policy with it: one refused fails the policy's compile.
  const refused = exceptionRefusal(run.exceptions ?? []);
  if (refused !== undefined)
    return result(call, "error", `policy ${call.name}: ${refused.field}: compilation failed: ${refused.reason}`);
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const asked: { namespace: string; object: JsonObject }[] = [];
  let armed = false;
  const sink: GeneratorSink = {
    apply(namespace, objects) {
      if (!armed) throw new CelFunctionError("generator.Apply is not available in matchConditions");
      if (call.namespace !== "" && namespace !== call.namespace)
        throw new CelFunctionError(
          `failed to generate resources: policy ${call.namespace}/${call.name} may only generate in its own namespace ${JSON.stringify(call.namespace)}, not ${JSON.stringify(namespace)}`,
        );
      for (const object of objects) asked.push({ namespace, object });
    },
  };
  const withSink: CelServices = { ...services, generator: sink };
  const excepted = exceptionsOf(run, budget);
  if ("result" in excepted) return excepted.result;
  const activation = policyActivation(policy.variables, input, {
    extra: { exceptions: excepted.allowed },
    budget,
    services: withSink,
  });
  for (const c of policy.matchConditions) {
    const r = c.program.evaluate(activation, budget, withSink);
    if (!r.ok) return result(call, "error", `${EVALUATION_FAILED}matchConditions ${c.name}: ${r.error.message}`);
    if (r.value !== true) return undefined;
  }
  armed = true;
  for (const [i, g] of policy.generate.entries()) {
    if (g.kind === "template") {
      const objects = templateObjects(g.template, call, (program) => {
        const r = program.evaluate(activation, budget, withSink);
        return r.ok ? { ok: true, value: r.value } : { ok: false, message: r.error.message };
      });
      if (!objects.ok) return result(call, "error", `${EVALUATION_FAILED}spec.generate[${i}]: ${objects.message}`);
      asked.push(...objects.asked);
      continue;
    }
    const r = g.program.evaluate(activation, budget, withSink);
    if (!r.ok) return result(call, "error", `${EVALUATION_FAILED}spec.generate[${i}]: ${r.error.message}`);
  }
  armed = false;
  const generated = asked.map((a) => downstream(a.object, a.namespace, policy, call));
  return { ...result(call, "pass", "policy evaluated successfully"), generated };
}

/**
 * A template's objects, each in the namespace its `metadata.namespace` names (none: cluster-scoped),
 * grouped by namespace in the order they first appear, as Kyverno hands them to its generator. A
 * namespaced policy's objects without a namespace go to its own; one naming another is refused.
 */
function templateObjects(
  template: CompiledTemplate,
  call: GeneratingCall,
  evaluate: EvaluatePlaceholder,
): { ok: true; asked: { namespace: string; object: JsonObject }[] } | { ok: false; message: string } {
  const rendered = renderTemplate(template, evaluate);
  if (!rendered.ok) return { ok: false, message: `failed to render generation template: ${rendered.message}` };
  const groups = new Map<string, JsonObject[]>();
  for (const object of rendered.resources) {
    const metadata = isObject(object["metadata"]) ? object["metadata"] : {};
    let namespace = typeof metadata["namespace"] === "string" ? metadata["namespace"] : "";
    if (call.namespace !== "") {
      if (namespace === "") namespace = call.namespace;
      else if (namespace !== call.namespace)
        return {
          ok: false,
          message: `cross-namespace generation denied: a policy in namespace ${goQuote(call.namespace)} cannot generate resources into namespace ${goQuote(namespace)}`,
        };
    }
    const group = groups.get(namespace) ?? [];
    group.push(object);
    groups.set(namespace, group);
  }
  return {
    ok: true,
    asked: [...groups].flatMap(([namespace, objects]) => objects.map((object) => ({ namespace, object }))),
  };
}

/** One object asked for: its namespace set to the one asked for (none for ""), and Kyverno's labels. */
function downstream(
  object: JsonObject,
  namespace: string,
  policy: CompiledGeneratingPolicy,
  call: GeneratingCall,
): GeneratedResource {
  const resource = cloneJson(object);
  const metadata = isObject(resource["metadata"]) ? resource["metadata"] : {};
  if (!isObject(resource["metadata"])) setOwn(resource, "metadata", metadata);
  if (namespace !== "") setOwn(metadata, "namespace", namespace);
  const labels = generatingLabels({ policyName: call.name, policyNamespace: call.namespace, trigger: call.trigger });
  const applied = applyLabels(resource, labels);
  return {
    resource,
    labels: applied.labels,
    toApply: applied.toApply,
    synchronize: policy.synchronize,
    orphanDownstreamOnPolicyDelete: policy.orphanDownstreamOnPolicyDelete,
  };
}
