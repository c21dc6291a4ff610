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

/**
 * spec.evaluation.mode Envoy: the policy evaluates Envoy checks, not Kubernetes objects (Bylaw does
 * not run those yet). An HTTP-mode policy compiles apart (compileHttpBody).
 */
function payloadMode(spec: JsonObject): boolean {
  const mode = isObject(spec["evaluation"]) ? spec["evaluation"]["mode"] : undefined;
  return mode === "Envoy";
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
  // Neither a JSON-mode nor an HTTP-mode policy has autogen copies: they never see a Pod.
  const copies = (mode === "JSON" || mode === "HTTP" ? [] : autogenSpecs(spec)).map((copy) =>
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
  if (isObject(spec["evaluation"]) && spec["evaluation"]["mode"] === "HTTP")
    return { ok: true, ...compileHttpBody(spec, name, cel, failurePolicy) };
  // JSON payloads are not Kubernetes objects: such a policy has no matchConstraints to decide by.
  // An Envoy policy may have none either; Kyverno's matcher then matches no Kubernetes request.
  const constraints =
    jsonMode || (payloadMode(spec) && !isObject(spec["matchConstraints"]))
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

/**
 * An HTTP-mode policy's spec as kyverno-authz's compiler reads it (pkg/engine/compiler): its
 * matchConditions (bool), variables, and validations whose value is an `http.CheckResponse` or
 * `null`; no matchConstraints (no Kubernetes request ever matches it), messages or auditAnnotations.
 * `cel` is the HTTP environment (shared-cel.ts "http-authz"). The first expression that does not
 * compile is the failure, in Kyverno's words: "failed to compile HTTP policy NAME: FIELD: Invalid value: …".
 */
function compileHttpBody(
  spec: JsonObject,
  name: string,
  cel: CelEngine,
  failurePolicy: "Fail" | "Ignore",
): { compiled: CompiledValidatingPolicy; failure: string | undefined } {
  const variableNames = list(spec["variables"]).map((v) => text(v, "name") ?? "");
  const compiler = httpCompiler(name, cel, variableNames);
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
        ["dyn", "null"],
        "rule response output is expected to be of type http.CheckResponse",
      );
      return program === undefined ? undefined : { expression, program, message: "", messageExpression: undefined };
    }),
  );
  return {
    compiled: {
      kind: "validating-policy",
      mode: "HTTP",
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

/** Compiles an HTTP-mode policy's expressions until the first failure, which it keeps in Kyverno's words. */
function httpCompiler(name: string, cel: CelEngine, variableNames: readonly string[]) {
  let failure: string | undefined;
  const compile = (
    field: string,
    expression: string,
    types: readonly string[],
    wrongType: string,
  ): CelProgram | undefined => {
    if (failure !== undefined) return undefined;
    const invalid = (why: string): undefined => {
      failure = `failed to compile HTTP policy ${name}: ${field}: Invalid value: ${JSON.stringify(expression)}: ${why}`;
      return undefined;
    };
    if (/\bobject\s*\.\s*mcp\b/.test(expression))
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
