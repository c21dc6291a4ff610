/**
 * The policy validating webhook for the policies.kyverno.io policy kinds (Kyverno validates them
 * in its policy webhook too): the object is compiled as `bylaw serve` loads it
 * (policy-source/cel-policy-compile.ts). A ValidatingPolicy whose expressions do not compile (the
 * message names the policy, field and position), or whose matchConstraints are unusable, is
 * denied with the reasons. A kind Bylaw does not evaluate is admitted (Kyverno would accept it),
 * with a warning saying what Bylaw does with it. A PolicyException is compiled as `serve` loads it
 * (`engine.compileException`): one that does not compile (e.g. a matchConditions expression, named
 * with its field and position) is denied with the reasons; its warnings come with the answer.
 */
import { type Engine, isObject, type JsonObject, type PolicyProblem } from "../../engine/index.js";
import { celKindInfo } from "../../kube/cel-policy-kinds.js";
import { compileCelPolicy, notEvaluatedMessage } from "../policy-source/cel-policy-compile.js";
import { allowed, denied } from "./response.js";
import type { AdmissionRequestJson, AdmissionReviewJson } from "./types.js";

export function checkCelPolicy(request: AdmissionRequestJson, object: JsonObject, kind: string, engine: Engine): AdmissionReviewJson {
  const metadata = isObject(object["metadata"]) ? object["metadata"] : {};
  if (kind === "PolicyException") return checkCelException(request, object, metadata, engine);
  const info = celKindInfo(kind);
  if (info === undefined) return allowed(request.uid);
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  if (info.handling === "not-evaluated") return allowed(request.uid, [notEvaluatedMessage(kind, name)]);
  // The API server fills in the namespace of a namespaced object before admission; a copy keeps the check as served.
  const doc: JsonObject = info.namespaced && typeof metadata["namespace"] !== "string" && typeof request.namespace === "string" ? { ...object, metadata: { ...metadata, namespace: request.namespace } } : object;
  const compiled = compileCelPolicy(doc, engine);
  if (compiled.policy === undefined) return denied(request.uid, compiled.problems.map(describe).join("; ") || "the policy is not valid");
  return allowed(request.uid, compiled.notEvaluated !== undefined ? [`${compiled.notEvaluated}; Bylaw answers such requests as errors under the policy's failurePolicy`] : []);
}

function checkCelException(request: AdmissionRequestJson, object: JsonObject, metadata: JsonObject, engine: Engine): AdmissionReviewJson {
  // Namespaced: the API server fills in the namespace before admission; a copy keeps the key as served.
  const namespace = typeof metadata["namespace"] === "string" ? metadata["namespace"] : (request.namespace ?? "");
  const doc: JsonObject = typeof metadata["namespace"] !== "string" && namespace !== "" ? { ...object, metadata: { ...metadata, namespace } } : object;
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  const compiled = engine.compileException(doc, `PolicyException ${namespace}/${name}`);
  if (!compiled.ok) {
    const errors = compiled.problems.filter((p) => p.severity === "error").map(describe);
    const warnings = compiled.problems.filter((p) => p.severity === "warning").map(describe);
    return denied(request.uid, `PolicyException ${name}: ${errors.join("; ") || "the PolicyException is not valid"}`, warnings);
  }
  return allowed(request.uid, compiled.exception.warnings.map(describe));
}

function describe(p: PolicyProblem): string {
  return p.path === "" ? p.message : `${p.path}: ${p.message}`;
}
