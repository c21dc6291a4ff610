/**
 * One MutatingPolicy spec compiled into programs (the policy's own and each autogen copy for pod
 * controllers, ../mutating-policy-autogen.ts): matchConstraints, matchConditions, variables and
 * mutations. Object constructors (`Object{…}`, `JSONPatch{…}`) are rewritten into map literals
 * first (struct-literals.ts). Every expression compiles here, never at evaluation; the first that
 * does not compile, or a part Bylaw does not run (JSON mode), is the body's
 * `failure`: every resource it matches gets it as an error naming the policy and the field.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import type { PolicyProblem } from "../../api/problem.js";
import { createCel } from "../create-cel.js";
import { defaultLibraries } from "../libraries/index.js";
import { mutatingAutogenConfigs } from "../mutating-policy-autogen.js";
import type { CelEngine, CelProgram } from "../types.js";
import { compileConstraints } from "../validating-policy/match-constraints.js";
import type { CompiledConstraints } from "../validating-policy/match-constraints.js";
import type { CompiledMutatingBody, CompiledMutation, CompiledTargets } from "./compiled.js";
import { jsonPatchLibrary } from "./json-patch-library.js";
import { asWritten, structLiteralsAsMaps } from "./struct-literals.js";
import { typeNameMismatches } from "./struct-type-names.js";
import { ExactTypes } from "../exact-types.js";

const ENGINES: { cluster?: CelEngine; namespaced?: CelEngine } = {};

/** The CEL environment of a MutatingPolicy: a ValidatingPolicy's, with Kubernetes' `jsonpatch` library. */
function mutatingCel(scope: "cluster" | "namespaced"): CelEngine {
  return (ENGINES[scope] ??= createCel({ libraries: [...defaultLibraries(), jsonPatchLibrary()], kyverno: scope }));
}

function list(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function text(o: JsonObject, key: string): string | undefined {
  const v = o[key];
  return typeof v === "string" ? v : undefined;
}

type Bodies = { ok: true; bodies: CompiledMutatingBody[] } | { ok: false; problems: PolicyProblem[] };

/** The policy's spec and its autogen copies, in order; a problem when matchConstraints are not usable. */
export function compileMutatingBodies(spec: JsonObject, name: string, scope: "cluster" | "namespaced"): Bodies {
  const cel = mutatingCel(scope);
  const label = scope === "namespaced" ? "NamespacedMutatingPolicy" : "MutatingPolicy";
  // No matchConstraints at all reads as empty ones: the problem names what they lack (resourceRules).
  const own = spec["matchConstraints"] === undefined ? { ...spec, matchConstraints: {} } : spec;
  const specs = [own, ...mutatingAutogenConfigs(spec).map((c) => c.spec)];
  const bodies: CompiledMutatingBody[] = [];
  for (const [i, s] of specs.entries()) {
    const constraints = compileConstraints(s, `${label} ${name}`);
    if (!constraints.ok) {
      if (i === 0) return constraints;
      continue;
    }
    const prefix = i === 0 ? "" : "(autogen for pod controllers) ";
    const programs = compilePrograms(s, { name: `${label} ${name}`, cel, prefix, exactTypes: true });
    const printedUnmatched = !plainConstraints(s["matchConstraints"]);
    if (i > 0 || !mutatesExisting(s)) {
      bodies.push({ constraints: constraints.value, ...programs, printedUnmatched });
      continue;
    }
    const targets = compileTargets(s, { name: `${label} ${name}`, cel, own: constraints.value });
    if (!targets.ok) return targets;
    const failure = programs.failure ?? targets.failure;
    bodies.push({ constraints: constraints.value, ...programs, failure, existing: targets.value, printedUnmatched });
  }
  return { ok: true, bodies };
}

type Programs = Omit<CompiledMutatingBody, "constraints" | "printedUnmatched">;

/**
 * matchConstraints that are one resource rule naming no resources, with no exclude and no non-empty
 * selector: Kyverno's CLI prints nothing for a body with such constraints that did not match
 * (cmd/cli/kubectl-kyverno/processor hasSelector), and the resource for any other body.
 */
function plainConstraints(value: JsonValue | undefined): boolean {
  if (!isObject(value)) return false;
  const selects = (selector: JsonValue | undefined): boolean =>
    isObject(selector) &&
    ((isObject(selector["matchLabels"]) && Object.keys(selector["matchLabels"]).length > 0) ||
      list(selector["matchExpressions"]).length > 0);
  if (selects(value["namespaceSelector"]) || selects(value["objectSelector"])) return false;
  if (list(value["excludeResourceRules"]).length > 0) return false;
  const rules = list(value["resourceRules"]);
  const names = rules[0]?.["resourceNames"];
  return rules.length === 1 && !(Array.isArray(names) && names.length > 0);
}

/**
 * A spec's matchConditions, variables and mutations compiled in `at.cel` (a MutatingAdmissionPolicy's
 * too: cel/mutating-admission-policy/); `at.name` is `<Kind> <name>`, as messages start.
 */
export function compilePrograms(
  spec: JsonObject,
  at: {
    readonly name: string;
    readonly cel: CelEngine;
    readonly prefix: string;
    /** Types checked exactly, as Kyverno's compiler checks a MutatingPolicy's (exact-types.ts); not Kubernetes' MutatingAdmissionPolicy. */
    readonly exactTypes?: boolean;
  },
): Programs {
  const { name, cel, prefix } = at; // `name` is `<Kind> <name>`, as messages start
  const types = at.exactTypes === true ? new ExactTypes() : undefined;
  let failure = notRun(spec, name);
  const variableNames = list(spec["variables"]).map((v) => text(v, "name") ?? "");
  const compile = (field: string, expression: string | undefined, expectType?: string): CelProgram | undefined => {
    if (failure !== undefined) return undefined;
    if (expression === undefined || expression.trim() === "") {
      failure = `${name}: ${prefix}${field}: an expression is required`;
      return undefined;
    }
    const source = structLiteralsAsMaps(expression);
    const r = cel.compile(source, expectType === undefined ? { variableNames } : { variableNames, expectType });
    if (!r.ok) failure = `${name}: ${prefix}${field}: compilation failed: ${r.error.message}`;
    return r.ok ? asWritten(r.value, expression) : undefined;
  };
  const defined = <T>(items: (T | undefined)[]): T[] => items.filter((x): x is T => x !== undefined);
  const matchConditions = defined(
    list(spec["matchConditions"]).map((c, i) => {
      const field = `spec.matchConditions[${i}].expression`;
      const program = compile(field, text(c, "expression"), "bool");
      const refusal = program === undefined ? undefined : types?.refusal(program, ["bool"], "of type bool");
      if (refusal !== undefined) failure ??= `${name}: ${prefix}${field}: compilation failed: ${refusal}`;
      return program === undefined || refusal !== undefined ? undefined : { name: text(c, "name") ?? "", program };
    }),
  );
  const variables = defined(
    list(spec["variables"]).map((v, i) => {
      const program = compile(`spec.variables[${i}].expression`, text(v, "expression"));
      if (program !== undefined) types?.variable(variableNames[i] ?? "", program);
      return program === undefined ? undefined : { name: variableNames[i] ?? "", program };
    }),
  );
  const mutations = defined(list(spec["mutations"]).map((m, i) => compileMutation(m, i, compile)));
  return {
    matchConditions,
    variables,
    mutations,
    failure,
    reinvokeIfNeeded: spec["reinvocationPolicy"] === "IfNeeded",
  };
}

function compileMutation(
  m: JsonObject,
  i: number,
  compile: (field: string, expression: string | undefined) => CelProgram | undefined,
): CompiledMutation | undefined {
  const patchType = m["patchType"] === "JSONPatch" ? "JSONPatch" : "ApplyConfiguration";
  const field = patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
  const body = isObject(m[field]) ? m[field] : {};
  const expression = text(body, "expression");
  const program = compile(`spec.mutations[${i}].${field}.expression`, expression);
  if (program === undefined) return undefined;
  const mismatches = typeNameMismatches(expression ?? "");
  return mismatches.length === 0
    ? { patchType, program }
    : { patchType, program, typeMismatch: `type mismatch: ${mismatches.join("\n")}` };
}

/** `spec.evaluation.mutateExisting.enabled`. */
function mutatesExisting(spec: JsonObject): boolean {
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  const existing = isObject(evaluation["mutateExisting"]) ? evaluation["mutateExisting"] : {};
  return existing["enabled"] === true;
}

type Targets =
  { ok: true; value: CompiledTargets; failure: string | undefined } | { ok: false; problems: PolicyProblem[] };

/**
 * A mutate-existing policy's targets: `spec.targetMatchConstraints` when it names resourceRules
 * (else the policy's own matchConstraints, as Kyverno 1.19 lists them) and `spec.targetMatchConditions`.
 * `targetMatchConstraints.expression` computes the targets from the trigger instead (targets.ts).
 */
function compileTargets(
  spec: JsonObject,
  at: { readonly name: string; readonly cel: CelEngine; readonly own: CompiledConstraints },
): Targets {
  const tmc = isObject(spec["targetMatchConstraints"]) ? spec["targetMatchConstraints"] : undefined;
  let constraints = at.own;
  if (tmc !== undefined && list(tmc["resourceRules"]).length > 0) {
    const compiled = compileConstraints(spec, at.name, { field: "spec.targetMatchConstraints", rulesRequired: true });
    if (!compiled.ok) return compiled;
    constraints = compiled.value;
  }
  let failure: string | undefined;
  const variableNames = list(spec["variables"]).map((v) => text(v, "name") ?? "");
  let expression: CelProgram | undefined;
  const written = tmc !== undefined ? text(tmc, "expression") : undefined;
  if (written !== undefined && written.trim() !== "") {
    const field = "spec.targetMatchConstraints.expression";
    const r = at.cel.compile(structLiteralsAsMaps(written), { variableNames });
    if (!r.ok) failure = `${at.name}: ${field}: compilation failed: ${r.error.message}`;
    // As Kyverno's compiler: exactly map(string, dyn), what resource.Get and resource.List return.
    else if (r.value.outputType !== "map<string, dyn>") failure = `${at.name}: ${field}: output type must be a map`;
    else expression = asWritten(r.value, written);
  }
  const matchConditions: { name: string; program: CelProgram }[] = [];
  for (const [i, c] of list(spec["targetMatchConditions"]).entries()) {
    const expression = text(c, "expression");
    const field = `spec.targetMatchConditions[${i}].expression`;
    if (expression === undefined || expression.trim() === "") {
      failure ??= `${at.name}: ${field}: an expression is required`;
      continue;
    }
    const r = at.cel.compile(structLiteralsAsMaps(expression), { variableNames, expectType: "bool" });
    if (!r.ok) failure ??= `${at.name}: ${field}: compilation failed: ${r.error.message}`;
    else matchConditions.push({ name: text(c, "name") ?? "", program: r.value });
  }
  return {
    ok: true,
    value: { constraints, matchConditions, ...(expression !== undefined ? { expression } : {}) },
    failure,
  };
}

/** What the spec asks that Bylaw does not run yet: an error naming the field, never a silent pass. */
function notRun(spec: JsonObject, name: string): string | undefined {
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  if (evaluation["mode"] === "JSON")
    return `${name}: spec.evaluation.mode: JSON: Bylaw does not run a MutatingPolicy on JSON payloads yet`;
  return undefined;
}
