/**
 * `validate.cel` and `celPreconditions` of a kyverno.io rule, compiled once at policy load:
 * preconditions (bool), variables (any type, reachable as `variables.<name>` from expressions and
 * from later variables), validations (bool)
 * with their message or messageExpression (string), and auditAnnotations (checked, not evaluated:
 * they only annotate audit events). A compile error names the policy, the rule, the field and the
 * position; the rule then answers `error` for every resource it matches.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import type { Rule } from "../../api/policy.js";
import type { CelEngine, CelProgram } from "../types.js";
import type { PolicyProblem } from "../../api/problem.js";
import { compileParamRef, type CompiledParamRef, type ParamKindRef } from "../params/index.js";

interface CompiledCelValidation {
  readonly expression: string;
  readonly program: CelProgram;
  readonly message: string | undefined;
  readonly messageExpression: CelProgram | undefined;
}

export interface CompiledCelRule {
  /** `validate.cel.paramKind` with `paramRef`: the objects the rule runs with, once each. */
  readonly params: { readonly kind: ParamKindRef; readonly ref: CompiledParamRef } | undefined;
  readonly preconditions: readonly CelProgram[];
  readonly variables: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly validations: readonly CompiledCelValidation[];
}

type CelRuleOutcome = { ok: true; value: CompiledCelRule } | { ok: false; message: string };

function list(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function text(o: JsonObject, key: string): string | undefined {
  const v = o[key];
  return typeof v === "string" ? v : undefined;
}

/** Whether the rule has CEL to compile here (validate.cel or celPreconditions). */
export function usesCel(rule: Rule): boolean {
  return rule.validate?.cel !== undefined || (rule.celPreconditions?.length ?? 0) > 0;
}

export function compileCelRule(rule: Rule, policyName: string, cel: CelEngine): CelRuleOutcome {
  const celSpec: JsonObject = rule.validate?.cel ?? {};
  const variableDocs = list(celSpec["variables"]);
  const variableNames = variableDocs.map((v) => text(v, "name") ?? "");
  const where = `policy ${policyName}, rule ${rule.name}`;
  let failure: string | undefined;
  const compile = (
    field: string,
    expression: string | undefined,
    expectType?: string,
    names = variableNames,
  ): CelProgram | undefined => {
    if (failure !== undefined) return undefined;
    if (expression === undefined || expression.trim() === "") {
      failure = `${where}: ${field}: an expression is required`;
      return undefined;
    }
    const r = cel.compile(
      expression,
      expectType === undefined ? { variableNames: names } : { variableNames: names, expectType },
    );
    if (!r.ok) {
      failure = `${where}: ${field}: compilation failed: ${r.error.message}`;
      return undefined;
    }
    return r.value;
  };
  const preconditions = list(rule.celPreconditions as JsonValue | undefined).map((p, i) =>
    compile(`celPreconditions[${i}].expression`, text(p, "expression"), "bool"),
  );
  // A variable reads only the ones before it, as Kubernetes compiles them.
  const variables = variableDocs.map((v, i) => ({
    name: variableNames[i] ?? "",
    program: compile(
      `validate.cel.variables[${i}].expression`,
      text(v, "expression"),
      undefined,
      variableNames.slice(0, i),
    ),
  }));
  const validations = list(celSpec["expressions"]).map((e, i) => {
    const program = compile(`validate.cel.expressions[${i}].expression`, text(e, "expression"), "bool");
    const messageExpression = text(e, "messageExpression");
    return {
      expression: text(e, "expression") ?? "",
      program,
      // Kyverno fills an empty message from the rule's validate.message.
      message: text(e, "message") || rule.validate?.message,
      messageExpression:
        messageExpression === undefined
          ? undefined
          : compile(`validate.cel.expressions[${i}].messageExpression`, messageExpression, "string"),
    };
  });
  list(celSpec["auditAnnotations"]).forEach((a, i) =>
    compile(`validate.cel.auditAnnotations[${i}].valueExpression`, text(a, "valueExpression")),
  );
  const params = paramsOf(celSpec, where);
  if (typeof params === "string") failure ??= params;
  if (failure !== undefined) return { ok: false, message: failure };
  return {
    ok: true,
    value: {
      params: typeof params === "string" ? undefined : params,
      preconditions: preconditions.filter((p): p is CelProgram => p !== undefined),
      variables: variables.flatMap((v) => (v.program === undefined ? [] : [{ name: v.name, program: v.program }])),
      validations: validations.flatMap((v) => (v.program === undefined ? [] : [{ ...v, program: v.program }])),
    },
  };
}

/** paramKind and paramRef (both, or no params: Kubernetes ignores one without the other); a message when malformed. */
function paramsOf(celSpec: JsonObject, where: string): CompiledCelRule["params"] | string {
  const kind = celSpec["paramKind"];
  if (!isObject(kind) || celSpec["paramRef"] === undefined || celSpec["paramRef"] === null) return undefined;
  const apiVersion = text(kind, "apiVersion") ?? "";
  const k = text(kind, "kind") ?? "";
  if (apiVersion === "" || k === "") return `${where}: validate.cel.paramKind needs apiVersion and kind`;
  const problems: PolicyProblem[] = [];
  const ref = compileParamRef(celSpec["paramRef"], where, problems, "validate.cel.paramRef", "rule");
  if (ref === undefined || problems.length > 0) return problems.map((p) => p.message).join("; ");
  return { kind: { apiVersion, kind: k }, ref };
}
