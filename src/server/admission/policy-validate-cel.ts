/**
 * The policy validating webhook for the policies.kyverno.io policy kinds (Kyverno validates them
 * in its policy webhook too): the object is compiled as `bylaw serve` loads it
 * (policy-source/cel-policy-compile.ts). A ValidatingPolicy whose expressions do not compile (the
 * message names the policy, field and position), or whose matchConstraints are unusable, is
 * denied with the reasons. A kind Bylaw does not evaluate yet is refused, naming the kind (issue 34
 * §2: never half-served; unserved-parts.ts). The PolicyException is checked as the kyverno.io one
 * is (policy-validate-exception.ts).
 */
import {
  type BackgroundWrite,
  cleanupDeletes,
  type CompiledPolicy,
  isObject,
  type JsonObject,
} from "../../engine/index.js";
import { type AdmissionDeps, cleanupControllerRuns } from "./deps.js";
import { celKindInfo } from "../../kube/cel-policy-kinds.js";
import { tenantProblems } from "../tenancy/tenant-problems.js";
import { compileCelPolicy, notEvaluatedMessage } from "../policy-source/cel-policy-compile.js";
import { allowed, denied } from "./response.js";
import type { AdmissionRequestJson, AdmissionReviewJson } from "./types.js";
import { problemText } from "../../platform/policy-documents/index.js";
import { unservedKind } from "../policy-source/unserved-parts.js";

/** A policies.kyverno.io policy kind (not the PolicyException). */
export function checkCelPolicy(
  request: AdmissionRequestJson,
  object: JsonObject,
  kind: string,
  deps: Pick<AdmissionDeps, "engine" | "cleanupController">,
): {
  readonly answer: AdmissionReviewJson;
  readonly compiled?: CompiledPolicy;
  readonly deletes?: readonly BackgroundWrite[];
} {
  const engine = deps.engine;
  const metadata = isObject(object["metadata"]) ? object["metadata"] : {};
  const info = celKindInfo(kind);
  if (info === undefined) return { answer: allowed(request.uid) };
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  // The API server fills in the namespace of a namespaced object before admission; a copy keeps the check as served.
  const doc: JsonObject =
    info.namespaced && typeof metadata["namespace"] !== "string" && typeof request.namespace === "string"
      ? { ...object, metadata: { ...metadata, namespace: request.namespace } }
      : object;
  // A namespaced kind is tenant input, whatever Bylaw does with it: what it reaches outside its
  // namespace is refused here, with the field (tenant-isolation.md rule 3: no globalContext).
  const namespace = isObject(doc["metadata"]) ? doc["metadata"]["namespace"] : undefined;
  const tenant = info.namespaced ? tenantProblems(doc, typeof namespace === "string" ? namespace : "default") : [];
  if (tenant.length > 0) return { answer: denied(request.uid, tenant.map(problemText).join("; ")) };
  if (info.handling === "cleanup") return checkDeletingPolicy(request, doc, deps);
  if (info.handling === "not-evaluated")
    return {
      answer: denied(
        request.uid,
        `${notEvaluatedMessage(kind, name)}; it is refused rather than admitted and never run`,
      ),
    };
  const compiled = compileCelPolicy(doc, engine);
  if (compiled.policy === undefined)
    return { answer: denied(request.uid, compiled.problems.map(problemText).join("; ") || "the policy is not valid") };
  // A kind Bylaw would serve only as errors is refused, never half-served (unserved-parts.ts).
  const unserved = unservedKind(compiled.policy);
  if (unserved !== undefined) return { answer: denied(request.uid, unserved.message) };
  return { answer: allowed(request.uid), compiled: compiled.policy };
}

/**
 * A DeletingPolicy (or Namespaced) compiles as `bylaw apply` compiles it: an invalid schedule,
 * matchConstraints or CEL is denied with the field. A valid one is admitted when the cleanup
 * controller runs (it runs it on its schedule), with what it deletes for its author's check;
 * otherwise it is refused, naming what would run it.
 */
function checkDeletingPolicy(
  request: AdmissionRequestJson,
  doc: JsonObject,
  deps: Pick<AdmissionDeps, "engine" | "cleanupController">,
): { readonly answer: AdmissionReviewJson; readonly deletes?: readonly BackgroundWrite[] } {
  const outcome = deps.engine.compile(doc);
  if (!outcome.ok)
    return {
      answer: denied(request.uid, outcome.problems.map(problemText).join("; ") || "the policy is not valid"),
    };
  if (cleanupControllerRuns(deps)) return { answer: allowed(request.uid), deletes: cleanupDeletes(outcome.policy) };
  return {
    answer: denied(
      request.uid,
      `${notEvaluatedMessage(outcome.policy.kind, outcome.policy.name)}; it is refused rather than admitted and never run`,
    ),
  };
}
