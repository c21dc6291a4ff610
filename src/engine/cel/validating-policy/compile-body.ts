/**
 * One ValidatingPolicy spec compiled into programs (the policy's own and each autogen copy for pod
 * controllers, autogen.ts): matchConstraints, matchConditions, variables (each may read any other,
 * lazily), validations with message/messageExpression, and auditAnnotations. Every expression
 * compiles here, never at evaluation; the first that does not compile is `failure`, naming the
 * policy, the field and the position, and every resource the spec matches gets it as an error.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import type { PolicyProblem } from "../../api/problem.js";
import type { CelCompileError, CelEngine, CelProgram } from "../types.js";
import { compileError } from "../errors.js";
import { autogenSpecs } from "./autogen.js";
import type { CompiledValidatingPolicy } from "./compiled.js";
import { compileConstraints, type CompiledConstraints } from "./match-constraints.js";
import { ExactTypes } from "../exact-types.js";

/** A JSON-mode policy has no matchConstraints: no Kubernetes request matches it (Kyverno's matcher answers false). */
const MATCH_NONE: CompiledConstraints = { decide: () => ({ kind: "no-match" }), namespaceLabelsFor: () => undefined };

/** spec.evaluation.mode HTTP or Envoy: kyverno-authz's requests, not Kubernetes objects (compileAuthzBody). */
function authzMode(spec: JsonObject): "HTTP" | "Envoy" | undefined {
  const mode = isObject(spec["evaluation"]) ? spec["evaluation"]["mode"] : undefined;
  return mode === "HTTP" || mode === "Envoy" ? mode : undefined;
}

function list(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function text(o: JsonObject, key: string): string | undefined {
  const v = o[key];
  return typeof v === "string" ? v : undefined;
}

interface CompiledBody {
  readonly compiled: CompiledValidatingPolicy;
  /** The compile error every matched resource answers with, if an expression did not compile. */
  readonly failure: string | undefined;
}

/** The policy's spec and its autogen copies, in order; a problem when matchConstraints are not usable. */
export function compileBodies(
  spec: JsonObject,
  name: string,
  cel: CelEngine,
): { ok: true; bodies: CompiledBody[] } | { ok: false; problems: PolicyProblem[] } {
  const original = compileBody(spec, name, cel, "");
  if (!original.ok) return original;
  const mode = isObject(spec["evaluation"]) ? spec["evaluation"]["mode"] : undefined;
  // Neither a JSON-mode nor an HTTP- or Envoy-mode policy has autogen copies: they never see a Pod.
  const copies = (mode === "JSON" || authzMode(spec) !== undefined ? [] : autogenSpecs(spec)).map((copy) =>
    compileBody(copy, name, cel, "(autogen for pod controllers) "),
  );
  return {
    ok: true,
    bodies: [original, ...copies].flatMap((b) => (b.ok ? [{ compiled: b.compiled, failure: b.failure }] : [])),
  };
}

type Body =
  | { ok: true; compiled: CompiledValidatingPolicy; failure: string | undefined }
  | { ok: false; problems: PolicyProblem[] };

/**
 * matchConstraints, matchConditions, variables, validations and auditAnnotations of one spec (the
 * policy's, or an autogen copy). A ValidatingAdmissionPolicy has the same fields with the same
 * meaning and compiles here too (`kindName` names it in problems).
 */
export function compileBody(
  spec: JsonObject,
  name: string,
  cel: CelEngine,
  prefix: string,
  kindName = "ValidatingPolicy",
): Body {
  const failurePolicy = spec["failurePolicy"] === "Ignore" ? "Ignore" : "Fail";
  const jsonMode = isObject(spec["evaluation"]) && spec["evaluation"]["mode"] === "JSON";
  const authz = authzMode(spec);
  if (authz !== undefined) return { ok: true, ...compileAuthzBody(spec, name, cel, authz) };
  // JSON payloads are not Kubernetes objects: such a policy has no matchConstraints to decide by.
  const constraints = jsonMode
    ? { ok: true as const, value: MATCH_NONE }
    : compileConstraints(spec, `${kindName} ${name}`);
  if (!constraints.ok) return constraints;

  const variableNames = list(spec["variables"]).map((v) => text(v, "name") ?? "");
  let failure: string | undefined;
  const compile = (
    field: string,
    expression: string | undefined,
    expectType: string | undefined,
    names: readonly string[],
  ): CelProgram | undefined => {
    if (failure !== undefined) return undefined;
    if (expression === undefined || expression.trim() === "") {
      failure = `policy ${name}: ${prefix}${field}: an expression is required`;
      return undefined;
    }
    const r = cel.compile(
      expression,
      expectType === undefined ? { variableNames: names } : { variableNames: names, expectType },
    );
    if (!r.ok) failure = `policy ${name}: ${prefix}${field}: compilation failed: ${r.error.message}`;
    return r.ok ? r.value : undefined;
  };
  // Types exactly as Kyverno's compiler wants them (exact-types.ts); a ValidatingAdmissionPolicy is
  // Kubernetes' to check.
  const types = new ExactTypes();
  const exactly = (
    field: string,
    program: CelProgram | undefined,
    allowed: readonly string[],
    wanted: string,
  ): CelProgram | undefined => {
    const refusal =
      program === undefined || kindName === "ValidatingAdmissionPolicy"
        ? undefined
        : types.refusal(program, allowed, wanted);
    if (refusal === undefined) return program;
    failure ??= `policy ${name}: ${prefix}${field}: compilation failed: ${refusal}`;
    return undefined;
  };
  const programs = <T>(items: (T | undefined)[]): T[] => items.filter((x): x is T => x !== undefined);
  const matchConditions = programs(
    list(spec["matchConditions"]).map((c, i) => {
      const field = `spec.matchConditions[${i}].expression`;
      const program = exactly(field, compile(field, text(c, "expression"), "bool", []), ["bool"], "of type bool");
      return program === undefined ? undefined : { name: text(c, "name") ?? "", program };
    }),
  );
  const variables = programs(
    list(spec["variables"]).map((v, i) => {
      const program = compile(`spec.variables[${i}].expression`, text(v, "expression"), undefined, variableNames);
      if (program !== undefined) types.variable(variableNames[i] ?? "", program);
      return program === undefined ? undefined : { name: variableNames[i] ?? "", program };
    }),
  );
  const validations = programs(
    list(spec["validations"]).map((v, i) => {
      const field = `spec.validations[${i}].expression`;
      const program = exactly(
        field,
        compile(field, text(v, "expression"), "bool", variableNames),
        ["bool"],
        "of type bool",
      );
      const me = text(v, "messageExpression");
      const meField = `spec.validations[${i}].messageExpression`;
      const messageExpression =
        me === undefined
          ? undefined
          : exactly(meField, compile(meField, me, "string", variableNames), ["string"], "of type string");
      return program === undefined
        ? undefined
        : { expression: text(v, "expression") ?? "", program, message: text(v, "message") ?? "", messageExpression };
    }),
  );
  // Kyverno compiles no auditAnnotations for a JSON-mode policy.
  const auditAnnotations = programs(
    (jsonMode ? [] : list(spec["auditAnnotations"])).map((a, i) => {
      const field = `spec.auditAnnotations[${i}].valueExpression`;
      const program = exactly(
        field,
        compile(field, text(a, "valueExpression"), undefined, variableNames),
        ["string", "null"],
        "either of type string or null_type",
      );
      return program === undefined ? undefined : { key: text(a, "key") ?? "", program };
    }),
  );
  return {
    ok: true,
    compiled: {
      kind: "validating-policy",
      mode: jsonMode ? "JSON" : "Kubernetes",
      constraints: constraints.value,
      failurePolicy,
      matchConditions,
      variables,
      validations,
      auditAnnotations,
    },
    failure,
  };
}

/** What kyverno-authz's compiler and Kyverno's CLI call each mode's policy and response type. */
const AUTHZ = {
  HTTP: { policy: "HTTP policy", response: "http.CheckResponse" },
  Envoy: { policy: "envoy policy", response: "envoy.service.auth.v3.CheckResponse" },
} as const;

/**
 * An HTTP- or Envoy-mode policy's spec as kyverno-authz's compiler reads it (pkg/engine/compiler):
 * its matchConditions (bool), variables, and validations whose value is an `http.CheckResponse`
 * (an `envoy.service.auth.v3.CheckResponse`) or `null`; no matchConstraints (no Kubernetes request
 * ever matches it, as Kyverno's CLI loader keeps these policies apart from those it applies to
 * resources), messages or auditAnnotations. `cel` is the mode's environment (shared-cel.ts
 * "http-authz", "envoy-authz"). The first expression that does not compile is the failure, in
 * Kyverno's words: "failed to compile HTTP policy NAME: FIELD: Invalid value: …" ("envoy policy").
 */
function compileAuthzBody(
  spec: JsonObject,
  name: string,
  cel: CelEngine,
  mode: "HTTP" | "Envoy",
): { compiled: CompiledValidatingPolicy; failure: string | undefined } {
  const failurePolicy = spec["failurePolicy"] === "Ignore" ? "Ignore" : "Fail";
  const variableNames = list(spec["variables"]).map((v) => text(v, "name") ?? "");
  const compiler = authzCompiler(name, cel, variableNames, mode);
  const compile = compiler.compile;
  const programs = <T>(items: (T | undefined)[]): T[] => items.filter((x): x is T => x !== undefined);
  const matchConditions = programs(
    list(spec["matchConditions"]).map((c, i) => {
      const program = compile(
        `spec.matchConditions[${i}].expression`,
        text(c, "expression") ?? "",
        ["bool", "dyn"],
        "matchCondition output is expected to be of type bool",
      );
      return program === undefined ? undefined : { name: text(c, "name") ?? "", program };
    }),
  );
  const variables = programs(
    list(spec["variables"]).map((v, i) => {
      const program = compile(`spec.variables[${i}].expression`, text(v, "expression") ?? "", [], "");
      return program === undefined ? undefined : { name: variableNames[i] ?? "", program };
    }),
  );
  const validations = programs(
    list(spec["validations"]).map((v, i) => {
      const expression = text(v, "expression") ?? "";
      const program = compile(
        `spec.validations[${i}].expression`,
        expression,
        // `.Response()` is `dyn` here (kyverno/http-authz.ts): the value is checked when it runs.
        ["dyn", "null", AUTHZ[mode].response],
        `rule response output is expected to be of type ${AUTHZ[mode].response}`,
      );
      return program === undefined ? undefined : { expression, program, message: "", messageExpression: undefined };
    }),
  );
  return {
    compiled: {
      kind: "validating-policy",
      mode,
      constraints: MATCH_NONE,
      failurePolicy,
      matchConditions,
      variables,
      validations,
      auditAnnotations: [],
    },
    failure: compiler.failure(),
  };
}

/** Compiles an HTTP- or Envoy-mode policy's expressions until the first failure, which it keeps in Kyverno's words. */
function authzCompiler(name: string, cel: CelEngine, variableNames: readonly string[], mode: "HTTP" | "Envoy") {
  let failure: string | undefined;
  const compile = (
    field: string,
    expression: string,
    types: readonly string[],
    wrongType: string,
  ): CelProgram | undefined => {
    if (failure !== undefined) return undefined;
    const invalid = (why: string): undefined => {
      failure = `failed to compile ${AUTHZ[mode].policy} ${name}: ${field}: Invalid value: ${JSON.stringify(expression)}: ${why}`;
      return undefined;
    };
    if (mode === "HTTP" && /\bobject\s*\.\s*mcp\b/.test(expression))
      return invalid("Bylaw does not evaluate MCP requests (object.mcp) yet");
    const r = cel.compile(expression, { variableNames });
    if (!r.ok) return invalid(undefinedFieldText(expression, r.error));
    if (types.length > 0 && !types.includes(r.value.outputType)) return invalid(wrongType);
    return r.value;
  };
  return { compile, failure: () => failure };
}

/**
 * cel-go's words for a field the request's types do not have: "undefined field 'x'" at the `.`
 * before it (cel-js says "No such key: x" at the name).
 */
function undefinedFieldText(expression: string, e: CelCompileError): string {
  const field = /^ERROR: <input>:\d+:\d+: No such key: (\S+)\n/.exec(e.message)?.[1];
  if (field === undefined) return e.message;
  const lines = expression.split("\n");
  const offset = lines.slice(0, e.line - 1).reduce((n, l) => n + l.length + 1, 0) + e.column - 1;
  return expression[offset - 1] === "."
    ? compileError(expression, offset - 1, `undefined field '${field}'`).message
    : e.message;
}
