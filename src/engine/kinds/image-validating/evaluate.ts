/**
 * An ImageValidatingPolicy against one request, as Kyverno 1.19's ivpol engine answers
 * (pkg/cel/policies/ivpol/engine, pkg/imageverification/evaluator): matchConstraints, then
 * matchConditions (false: no result; an error: the policy's error under failurePolicy Fail, no
 * result under Ignore), PolicyExceptions ("rule is skipped due to policy exception: <keys>"), the
 * images (images.ts), verifyDigest ("image <image> does not have a digest"), the validations
 * (the first false fails with its messageExpression, message, or "CEL expression validation failed
 * at index N"), auditAnnotations, then `required`: a passing policy fails when an image it
 * selected was not verified ("image <image> failed signature or attestation verification", or
 * "image <image> is not verified: no policy performed a signature or attestation check on it").
 * Results carry the policy's name as their rule, as Kyverno's do; an evaluation error is
 * "failed to evaluate policy: <why>" (rule "evaluation"). `required` counts this policy's own
 * verifications only (Kyverno also counts other policies' in the same request): it can fail where
 * Kyverno passes, never the reverse. The mutate phase pins matched images to their digests
 * (mutate-digest.ts).
 */
import { ruleResult, type RuleResult } from "../../api/rule-result.js";
import type { Resource } from "../../api/resource.js";
import { celPolicyInput } from "../../cel/validate-rule/index.js";
import { policyActivation } from "../../cel/lazy-variables.js";
import { fromCel, toCel } from "../../cel/values.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../../cel/types.js";
import type { CelServices } from "../../cel/kyverno/index.js";
import { decideExceptions } from "../../cel/validating-policy/exceptions.js";
import { celExceptionsFor, exceptionRefusal } from "../../exceptions/cel/index.js";
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import type { EngineEnv, PolicyResponse } from "../../pipeline/types.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import { noGeneration } from "../no-phase.js";
import type { CompiledImageValidatingBody } from "./body.js";
import { builtInImages, customImages, selectsImage } from "./images.js";
import { bodyFor } from "./body-for.js";
import { mutateDigest } from "./mutate-digest.js";
import { ImageVerifier } from "./verifier.js";

type Verdict = RuleResult | undefined;

function validate(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv): PolicyResponse {
  if (policy.language !== "image-validating") return noGeneration(policy, request);
  const result = evaluate(policy, request, env);
  return { policy, resource: request.subject, rules: result === undefined ? [] : [result] };
}

function evaluate(
  policy: CompiledPolicy & { language: "image-validating" },
  request: PreparedRequest,
  env: EngineEnv,
): Verdict {
  const matched = bodyFor(policy, request);
  if (matched === undefined) return undefined;
  const { body, verdict } = matched;
  if (verdict.kind === "error")
    return ruleResult("match", "ImageVerify", "error", `failed to execute matching: ${verdict.message}`);
  if (body.failure !== undefined)
    return ruleResult(
      "evaluation",
      "ImageVerify",
      "error",
      failureText(body.failure, body.failedImage, request.subject),
    );
  const req = request.request;
  const exceptions = namingExceptions(policy, request, env);
  // Kyverno compiles the exceptions naming the policy with it: one refused fails the policy's compile.
  const refused = exceptionRefusal(exceptions);
  const compileError =
    refused &&
    `failed to compile policy: ${refused.field}: Invalid value: ${JSON.stringify(refused.expression)}: ${refused.reason}`;
  if (compileError !== undefined) return ruleResult("evaluation", "ImageVerify", "error", compileError);
  const input = celPolicyInput(req, request.base(false));
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const caller = { policyNamespace: policy.namespace };
  const plain: CelServices = { ports: env.ports, policyNamespace: policy.namespace };
  const selects = (image: string): boolean =>
    selectsImage(image, body.matchImageReferences, { budget, services: plain });
  const verifier = new ImageVerifier({ body, ports: env.ports, caller, selects });
  const services: CelServices = { ...plain, imageVerifier: verifier };
  const conditions = matchConditions(body, input, { budget, services });
  if (conditions !== "match") return conditions;
  let allowed: unknown = { allowedImages: [], allowedValues: [] };
  if (exceptions.length > 0) {
    const decided = decideExceptions(exceptions, { ...input }, body.failurePolicy, budget, services);
    if (decided.kind === "exempt") return decided.result;
    if (decided.kind === "error") return ruleResult("evaluation", "ImageVerify", "error", decided.message);
    allowed = { allowedImages: decided.allowedImages, allowedValues: decided.allowedValues };
  }
  try {
    return validations(policy.name, body, {
      input,
      resource: request.subject,
      allowed,
      budget,
      services,
      verifier,
      selects,
    });
  } catch (e) {
    return ruleResult("evaluation", "ImageVerify", "error", `failed to evaluate policy: ${(e as Error).message}`);
  }
}

/** The policies.kyverno.io PolicyExceptions that name the policy. */
function namingExceptions(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv) {
  const req = request.request;
  return celExceptionsFor(
    req.exceptions,
    { kind: policy.kind, name: policy.name },
    {
      now: env.ports.clock.nowMillis(),
      ...(req.exceptionNamespaces !== undefined ? { allowedNamespaces: req.exceptionNamespaces } : {}),
    },
  );
}

/** The body's compile failure; an images extractor's index counted after the resource's built-in extractors, as Kyverno counts it. */
function failureText(failure: string, failedImage: number | undefined, resource: Resource): string {
  if (failedImage === undefined) return failure;
  const index = failedImage + builtInImages(resource).size;
  return failure.replace(`spec.images[${failedImage}]`, `spec.images[${index}]`);
}

interface Run {
  readonly budget: CostBudget;
  readonly services: CelServices;
}

/** "match" when every condition holds; no result when one is false (or errs under Ignore); the error under Fail. */
function matchConditions(
  body: CompiledImageValidatingBody,
  input: ReturnType<typeof celPolicyInput>,
  run: Run,
): "match" | Verdict {
  const activation = {
    object: input.object,
    oldObject: input.oldObject,
    request: input.request,
    namespaceObject: input.namespaceObject,
  };
  const errors: string[] = [];
  for (const c of body.matchConditions) {
    const r = c.program.evaluate(activation, run.budget, run.services);
    if (!r.ok) errors.push(`matchConditions ${c.name}: ${r.error.message}`);
    else if (r.value === false) return undefined;
    else if (r.value !== true) errors.push(`matchConditions ${c.name}: did not evaluate to a bool`);
  }
  if (errors.length === 0) return "match";
  if (body.failurePolicy === "Ignore") return undefined;
  return ruleResult("evaluation", "ImageVerify", "error", `failed to evaluate policy: ${errors.join("; ")}`);
}

interface ValidationRun extends Run {
  readonly input: ReturnType<typeof celPolicyInput>;
  /** The object (the old one on DELETE), as JSON: where the built-in extractors read images. */
  readonly resource: Resource;
  readonly allowed: unknown;
  readonly verifier: ImageVerifier;
  readonly selects: (image: string) => boolean;
}

function validations(name: string, body: CompiledImageValidatingBody, run: ValidationRun): RuleResult {
  const { budget, services } = run;
  const activation = policyActivation(body.variables, run.input, {
    extra: { exceptions: run.allowed },
    budget,
    services,
  });
  const found = builtInImages(run.resource);
  customImages(body.images, { activation, budget, services }, found);
  const images: Record<string, string[]> = {};
  const selected: string[] = [];
  for (const [category, list] of found) {
    images[category] = list.filter(run.selects);
    selected.push(...images[category]);
  }
  if (body.verifyDigest) {
    const bare = selected.find((image) => !image.includes("@"));
    if (bare !== undefined) return ruleResult(name, "ImageVerify", "fail", `image ${bare} does not have a digest`);
  }
  Object.assign(activation, {
    images,
    attestors: toCel(Object.fromEntries(body.attestors.map((a) => [a.name, a.attestor]))),
    attestations: Object.fromEntries([...body.attestations.keys()].map((k) => [k, k])),
  });
  for (const [i, v] of body.validations.entries()) {
    const r = v.program.evaluate(activation, budget, services);
    if (!r.ok) throw new Error(r.error.message);
    if (r.value === true) continue;
    if (r.value !== false) throw new Error(`validations[${i}] ('${v.expression.trim()}') did not evaluate to a bool`);
    auditAnnotations(body, activation, run);
    return ruleResult(name, "ImageVerify", "fail", failureMessage(v, i, activation, run));
  }
  auditAnnotations(body, activation, run);
  return required(name, body, selected, run.verifier) ?? ruleResult(name, "ImageVerify", "pass", "success");
}

function failureMessage(
  v: CompiledImageValidatingBody["validations"][number],
  i: number,
  activation: Record<string, unknown>,
  run: Run,
): string {
  let message = v.message;
  if (v.messageExpression !== undefined) {
    const m = v.messageExpression.evaluate(activation, run.budget, run.services);
    const value = m.ok ? fromCel(m.value) : undefined;
    message = !m.ok
      ? `failed to evaluate message expression: ${m.error.message}`
      : typeof value === "string"
        ? value
        : "failed to convert message expression to string";
  }
  return message === "" ? `CEL expression validation failed at index ${i}` : message;
}

function auditAnnotations(body: CompiledImageValidatingBody, activation: Record<string, unknown>, run: Run): void {
  for (const a of body.auditAnnotations) {
    const r = a.program.evaluate(activation, run.budget, run.services);
    if (!r.ok) throw new Error(`failed to evaluate auditAnnotation '${a.key}': ${r.error.message}`);
  }
}

function required(
  name: string,
  body: CompiledImageValidatingBody,
  images: readonly string[],
  verifier: ImageVerifier,
): Verdict {
  if (!body.required) return undefined;
  for (const image of images) {
    const verified = verifier.verified.get(image);
    if (verified === true) continue;
    const message =
      verified === false
        ? `image ${image} failed signature or attestation verification`
        : `image ${image} is not verified: no policy performed a signature or attestation check on it`;
    return ruleResult(name, "ImageVerify", "fail", message);
  }
  return undefined;
}

export const IMAGE_VALIDATING_EVALUATION: KindEvaluation = {
  validate,
  mutate: mutateDigest,
  generate: noGeneration,
};
