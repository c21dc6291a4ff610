/**
 * A GeneratingPolicy's spec compiled into programs: matchConstraints, matchConditions and variables
 * as a ValidatingPolicy's (validating-policy/compile-body.ts), and each `spec.generate[i].expression`
 * in the environment that declares `generator` (shared-cel.ts), or its `template` (template.ts,
 * placeholders in the same environment). Every expression compiles here, never at evaluation; the
 * first that does not is `failure`, and every trigger the policy matches gets it as an error.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import type { PolicyProblem } from "../../api/problem.js";
import type { CelEngine } from "../types.js";
import { compileBody } from "../validating-policy/compile-body.js";
import { compileTemplate } from "./template.js";
import type { CompiledGeneratingPolicy, CompiledGeneration } from "./compiled.js";
import { ExactTypes } from "../exact-types.js";

function enabled(evaluation: JsonObject, key: string): boolean {
  const part = evaluation[key];
  return isObject(part) && part["enabled"] === true;
}

function list(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

export function compileGeneratingBody(
  spec: JsonObject,
  name: string,
  cel: CelEngine,
): { ok: true; compiled: CompiledGeneratingPolicy } | { ok: false; problems: PolicyProblem[] } {
  const body = compileBody({ ...spec, validations: [], auditAnnotations: [] }, name, cel, "", "GeneratingPolicy");
  if (!body.ok) return body;
  let failure = body.failure;
  const variableNames = body.compiled.variables.map((v) => v.name);
  const types = new ExactTypes();
  for (const v of body.compiled.variables) types.variable(v.name, v.program);
  const generate: CompiledGeneration[] = [];
  for (const [i, g] of list(spec["generate"]).entries()) {
    if (failure !== undefined) break;
    const field = `spec.generate[${i}]`;
    const compiled = compileGeneration(g, { field, name, cel, variableNames, types });
    if (typeof compiled === "string") failure = compiled;
    else generate.push(compiled);
  }
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  return {
    ok: true,
    compiled: {
      constraints: body.compiled.constraints,
      matchConditions: body.compiled.matchConditions,
      variables: body.compiled.variables,
      generate,
      synchronize: enabled(evaluation, "synchronize"),
      generateExisting: enabled(evaluation, "generateExisting"),
      orphanDownstreamOnPolicyDelete: enabled(evaluation, "orphanDownstreamOnPolicyDelete"),
      failure,
    },
  };
}

/** One `spec.generate[i]` compiled, or the failure naming the policy and field. */
function compileGeneration(
  g: JsonObject,
  at: { field: string; name: string; cel: CelEngine; variableNames: readonly string[]; types: ExactTypes },
): CompiledGeneration | string {
  const { field, name, cel, variableNames } = at;
  const expression = typeof g["expression"] === "string" && g["expression"] !== "" ? g["expression"] : undefined;
  const template = isObject(g["template"]) ? g["template"] : undefined;
  if (expression !== undefined && template !== undefined)
    return `policy ${name}: ${field}: only one of expression or template may be set`;
  if (template !== undefined) {
    const value = typeof template["value"] === "string" ? template["value"] : "";
    if (value === "") return `policy ${name}: ${field}.template.value: Required value`;
    const compiled = compileTemplate({ value, interpolate: template["interpolate"] === "cel" }, (e) => {
      const r = cel.compile(e, { variableNames });
      return r.ok ? { ok: true, program: r.value } : { ok: false, message: r.error.message };
    });
    return compiled.ok
      ? { kind: "template", template: compiled.template }
      : `policy ${name}: ${field}.template.value: ${compiled.message}`;
  }
  if (expression === undefined || expression.trim() === "")
    return `policy ${name}: ${field}: one of expression or template must be set`;
  const r = cel.compile(expression, { variableNames });
  if (!r.ok) return `policy ${name}: ${field}.expression: compilation failed: ${r.error.message}`;
  // Kyverno's compiler wants a generate expression of type bool exactly (exact-types.ts).
  const refusal = at.types.refusal(r.value, ["bool"], "of type bool");
  return refusal === undefined
    ? { kind: "expression", expression, program: r.value }
    : `policy ${name}: ${field}.expression: compilation failed: ${refusal}`;
}
