/**
 * A GeneratingPolicy's spec compiled into programs: matchConstraints, matchConditions and variables
 * as a ValidatingPolicy's (validating-policy/compile-body.ts), and each `spec.generate[i].expression`
 * in the environment that declares `generator` (shared-cel.ts). Every expression compiles here,
 * never at evaluation; the first that does not (or a `template`, which Bylaw does not run yet) is
 * `failure`, and every trigger the policy matches gets it as an error.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import type { PolicyProblem } from "../../api/problem.js";
import type { CelEngine } from "../types.js";
import { compileBody } from "../validating-policy/compile-body.js";
import type { CompiledGeneratingPolicy, CompiledGeneration } from "./compiled.js";

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
  const generate: CompiledGeneration[] = [];
  for (const [i, g] of list(spec["generate"]).entries()) {
    if (failure !== undefined) break;
    const field = `spec.generate[${i}]`;
    const expression = typeof g["expression"] === "string" ? g["expression"] : undefined;
    if (expression === undefined || expression.trim() === "") {
      failure =
        g["template"] !== undefined
          ? `policy ${name}: ${field}.template: Bylaw does not run generate templates yet; write the resources with an expression (generator.Apply)`
          : `policy ${name}: ${field}.expression: an expression is required`;
      break;
    }
    const r = cel.compile(expression, { variableNames });
    if (!r.ok) failure = `policy ${name}: ${field}.expression: compilation failed: ${r.error.message}`;
    else generate.push({ expression, program: r.value });
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
