/**
 * An ImageValidatingPolicy's mutate phase (Kyverno 1.19 `HandleMutating`, `MutateDigest`): when
 * `mutateDigest` is on (the default) and the policy matches (matchConstraints, matchConditions, no
 * PolicyException), each image of the resource's containers, initContainers and
 * ephemeralContainers that has no digest and that matchImageReferences select is pinned to the
 * digest its tag resolves to (`<image>@<digest>`, the image named as Kyverno names it). No
 * signature is checked here: the validate phase verifies. An image whose digest cannot be resolved
 * keeps its tag and the policy answers an error "failed to update digest: failed to resolve digest
 * for image <image>: <why>" (rule "mutateDigest"), which its failurePolicy decides.
 */
import { ruleResult } from "../../api/rule-result.js";
import type { Resource } from "../../api/resource.js";
import { ok } from "../../api/result.js";
import type { CelServices } from "../../cel/kyverno/index.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../../cel/types.js";
import { celPolicyInput } from "../../cel/validate-rule/index.js";
import { decideExceptions } from "../../cel/validating-policy/exceptions.js";
import { celExceptionsFor, exceptionRefusal } from "../../exceptions/cel/index.js";
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import type { EngineEnv, PolicyResponse } from "../../pipeline/types.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { extractImages } from "../../verify-images/image-extractors.js";
import { setAt } from "../../verify-images/mutate-images.js";
import { noMutation } from "../no-phase.js";
import type { CompiledImageValidatingBody } from "./body.js";
import { bodyFor } from "./body-for.js";
import { selectsImage } from "./images.js";

export function mutateDigest(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv): PolicyResponse {
  if (policy.language !== "image-validating") return noMutation(policy, request);
  const matched = bodyFor(policy, request);
  if (matched === undefined || matched.verdict.kind !== "match") return noMutation(policy, request);
  const body = matched.body;
  const resource = request.request.resource;
  if (!body.mutateDigest || body.failure !== undefined || request.operation === "DELETE")
    return noMutation(policy, request);
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const services: CelServices = { ports: env.ports, policyNamespace: policy.namespace };
  if (!applies(policy, request, env, { budget, services, body })) return noMutation(policy, request);
  const found = extractImages(resource, undefined, () => ok(null));
  const errors: string[] = [];
  let patched: Resource = resource;
  try {
    for (const m of found.ok ? found.value : []) {
      if (m.digest !== "" || !selectsImage(m.image, body.matchImageReferences, { budget, services })) continue;
      const digest = env.ports.context.imageData(m.image, {
        form: "digest",
        ...(body.credentials !== undefined ? { credentials: body.credentials } : {}),
        caller: { policyNamespace: policy.namespace },
      });
      const value =
        digest.ok && typeof digest.value === "object" && digest.value !== null && !Array.isArray(digest.value)
          ? digest.value["digest"]
          : undefined;
      if (typeof value === "string" && value !== "") patched = setAt(patched, m.pointer, `${m.image}@${value}`);
      else
        errors.push(
          `failed to resolve digest for image ${m.image}: ${digest.ok ? "the registry gave no digest" : digest.error.message}`,
        );
    }
  } catch (e) {
    errors.push((e as Error).message);
  }
  const rules =
    errors.length === 0
      ? []
      : [ruleResult("mutateDigest", "ImageVerify", "error", `failed to update digest: ${errors.join("; ")}`)];
  return { policy, resource, rules, patchedResource: patched };
}

/** Whether every matchCondition holds (an error: not, as Kyverno skips mutation then) and no PolicyException exempts the request. */
function applies(
  policy: CompiledPolicy & { language: "image-validating" },
  request: PreparedRequest,
  env: EngineEnv,
  run: { readonly budget: CostBudget; readonly services: CelServices; readonly body: CompiledImageValidatingBody },
): boolean {
  const input = celPolicyInput(request.request, request.base(false));
  const activation = {
    object: input.object,
    oldObject: input.oldObject,
    request: input.request,
    namespaceObject: input.namespaceObject,
  };
  for (const c of run.body.matchConditions) {
    const r = c.program.evaluate(activation, run.budget, run.services);
    if (!r.ok || r.value !== true) return false;
  }
  const exceptions = celExceptionsFor(
    request.request.exceptions,
    { kind: policy.kind, name: policy.name },
    {
      now: env.ports.clock.nowMillis(),
      ...(request.request.exceptionNamespaces !== undefined
        ? { allowedNamespaces: request.request.exceptionNamespaces }
        : {}),
    },
  );
  if (exceptions.length === 0) return true;
  // An exception Kyverno refuses fails the policy's compile: no digest is mutated (as for body.failure).
  if (exceptionRefusal(exceptions) !== undefined) return false;
  return decideExceptions(exceptions, activation, "Ignore", run.budget, run.services).kind !== "exempt";
}
