/**
 * A MutatingAdmissionPolicy and the MutatingAdmissionPolicyBindings that name it, compiled once.
 * Checked as Kyverno 1.19's CLI loads them (against the OpenAPI schema only): refused, naming the
 * field, are a missing name or spec, a failurePolicy, reinvocationPolicy or patchType outside the
 * enums, a paramKind without apiVersion or kind, unusable matchConstraints, and an invalid binding.
 * An expression that does not compile makes every resource the policy applies to an error naming
 * the policy, the field and the position (the body's `failure`).
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { problem, type PolicyProblem } from "../../api/problem.js";
import { compileBinding, type CompiledBinding } from "../admission-policy/index.js";
import { createCel } from "../create-cel.js";
import { defaultLibraries } from "../libraries/index.js";
import { jsonPatchLibrary } from "../mutating-policy/json-patch-library.js";
import { compilePrograms } from "../mutating-policy/compile.js";
import type { CelEngine } from "../types.js";
import { compileConstraints } from "../validating-policy/match-constraints.js";
import type { CompiledMutatingAdmissionPolicy } from "./compiled.js";

const KIND = "MutatingAdmissionPolicy";
let engine: CelEngine | undefined;

/** Kubernetes' CEL environment (not Kyverno's libraries) with the `jsonpatch` library MAP expressions read. */
function admissionMutatingCel(): CelEngine {
  return (engine ??= createCel({ libraries: [...defaultLibraries(), jsonPatchLibrary()] }));
}

type Outcome = { ok: true; value: CompiledMutatingAdmissionPolicy } | { ok: false; problems: PolicyProblem[] };

function enumProblem(field: string, name: string, value: JsonValue | undefined, allowed: readonly string[]) {
  if (value === undefined || value === null || (typeof value === "string" && allowed.includes(value))) return [];
  const supported = allowed.map((a) => JSON.stringify(a)).join(", ");
  return [
    problem(
      field,
      `${KIND} ${name}: ${field}: Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`,
    ),
  ];
}

export function compileMutatingAdmissionPolicy(doc: JsonObject, bindingDocs: readonly JsonValue[]): Outcome {
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  if (!isObject(doc["spec"])) return { ok: false, problems: [problem("spec", `${KIND} ${name}: spec is required`)] };
  const spec = doc["spec"];
  const problems: PolicyProblem[] = [
    ...enumProblem("spec.failurePolicy", name, spec["failurePolicy"], ["Fail", "Ignore"]),
    ...enumProblem("spec.reinvocationPolicy", name, spec["reinvocationPolicy"], ["IfNeeded", "Never"]),
  ];
  const mutations = Array.isArray(spec["mutations"]) ? spec["mutations"] : [];
  mutations.forEach((m, i) => {
    const patchType = isObject(m) ? m["patchType"] : undefined;
    problems.push(
      ...enumProblem(`spec.mutations[${i}].patchType`, name, patchType, ["ApplyConfiguration", "JSONPatch"]),
    );
  });
  const paramKind = spec["paramKind"];
  if (paramKind !== undefined && paramKind !== null) {
    const given = (key: string) => isObject(paramKind) && typeof paramKind[key] === "string" && paramKind[key] !== "";
    const ok = given("apiVersion") && given("kind");
    if (!ok) problems.push(problem("spec.paramKind", `${KIND} ${name}: spec.paramKind needs apiVersion and kind`));
  }
  const bindings: CompiledBinding[] = [];
  for (const b of bindingDocs) {
    if (!isObject(b) || b["kind"] !== "MutatingAdmissionPolicyBinding") continue;
    const compiled = compileBinding(b);
    if (!compiled.ok) problems.push(...compiled.problems);
    else if (compiled.value.policyName === name) bindings.push(compiled.value.binding);
  }
  const constraints = compileConstraints(spec, `${KIND} ${name}`);
  if (!constraints.ok) problems.push(...constraints.problems);
  if (problems.length > 0 || !constraints.ok) return { ok: false, problems };
  const programs = compilePrograms(spec, { name: `${KIND} ${name}`, cel: admissionMutatingCel(), prefix: "" });
  return {
    ok: true,
    value: {
      policyName: name,
      // Kyverno's CLI prints an admission policy's resource only when it gave a result.
      body: { constraints: constraints.value, ...programs, printedUnmatched: false },
      failurePolicy: spec["failurePolicy"] === "Ignore" ? "Ignore" : "Fail",
      bindings,
    },
  };
}
