/**
 * A DeletingPolicy or NamespacedDeletingPolicy compiled once into its own body (body.ts), once the
 * document passes its CRD's schema (policy/schema/: every problem at its field path refuses it), with
 * Kyverno's checks (`pkg/cel/policies/dpol/validate.go`): a matchConstraints with at least one
 * resource rule, a schedule in cron format, a known deletionPropagationPolicy, and every variable
 * and condition compiling as a CEL expression (a condition must be a bool). What fails is a problem
 * naming the field: the run fails, as Kyverno's CLI refuses such a policy. The CEL environment is the
 * ValidatingPolicy one (object, namespaceObject, variables and Kyverno's libraries).
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { problem, type PolicyProblem } from "../../api/problem.js";
import { createCel } from "../../cel/create-cel.js";
import type { CelEngine, CelProgram } from "../../cel/types.js";
import { compileConstraints } from "../../cel/validating-policy/match-constraints.js";
import { isCronSchedule } from "../../policy/cleanup/cron-schedule.js";
import type { CompileEnv, KindCompileOutcome } from "../../policy/compile-policy.js";
import { schemaProblems } from "../../policy/schema/check-schema.js";
import type { PolicyKindName } from "../types.js";
import type { CompiledDeletingBody, DeletionPropagation } from "./body.js";
import { ExactTypes } from "../../cel/exact-types.js";
import { reportAnnotations } from "../../policy/report-annotations.js";

type Programs = { ok: true; value: { name: string; program: CelProgram }[] } | { ok: false; problem: PolicyProblem };

export function compileDeletingKind(doc: JsonObject, kind: PolicyKindName, env: CompileEnv): KindCompileOutcome {
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  const invalid = schemaProblems(doc) ?? [];
  if (invalid.length > 0) return { ok: false, problems: invalid };
  const what = `${kind} ${name}`;
  if (!isObject(doc["spec"])) return { ok: false, problems: [problem("spec", `${what}: spec is required`)] };
  const namespaced = kind === "NamespacedDeletingPolicy";
  const namespace = namespaced ? (typeof metadata["namespace"] === "string" && metadata["namespace"]) || "default" : "";
  const body = compileBody(
    doc["spec"],
    what,
    env.celPolicies?.(namespaced) ?? createCel({ kyverno: namespaced ? "namespaced" : "cluster" }),
  );
  if (!body.ok) return body;
  return {
    ok: true,
    policy: {
      language: "deleting",
      document: doc,
      kind,
      name,
      namespace,
      deleting: body.value,
      background: false,
      scored: true,
      ...reportAnnotations(metadata),
      warnings: [],
    },
  };
}

function compileBody(
  spec: JsonObject,
  what: string,
  cel: CelEngine,
): { ok: true; value: CompiledDeletingBody } | { ok: false; problems: PolicyProblem[] } {
  const problems: PolicyProblem[] = [];
  const schedule = spec["schedule"];
  if (typeof schedule !== "string" || schedule === "")
    problems.push(problem("spec.schedule", `${what}: spec.schedule is required`));
  else if (!isCronSchedule(schedule))
    problems.push(
      problem(
        "spec.schedule",
        `${what}: spec.schedule: Invalid value: ${JSON.stringify(schedule)}: schedule spec in the deletingPolicy is not in proper cron format`,
      ),
    );
  const propagation = spec["deletionPropagationPolicy"];
  if (propagation !== undefined && !isPropagation(propagation))
    problems.push(
      problem(
        "spec.deletionPropagationPolicy",
        `${what}: spec.deletionPropagationPolicy must be Foreground, Background or Orphan`,
      ),
    );
  const constraints = compileConstraints(everyOperation(spec), what);
  if (!constraints.ok) problems.push(...constraints.problems);
  const names = list(spec["variables"]).map((v) => (typeof v["name"] === "string" ? v["name"] : ""));
  const types = new ExactTypes();
  const variables = programs(cel, {
    field: "spec.variables",
    items: spec["variables"],
    names,
    expectType: undefined,
    what,
    types,
  });
  if (!variables.ok) problems.push(variables.problem);
  const conditions = programs(cel, {
    field: "spec.conditions",
    items: spec["conditions"],
    names,
    expectType: "bool",
    what,
    types,
  });
  if (!conditions.ok) problems.push(conditions.problem);
  if (problems.length > 0 || !constraints.ok || !variables.ok || !conditions.ok) return { ok: false, problems };
  return {
    ok: true,
    value: {
      schedule: schedule as string,
      propagation: isPropagation(propagation) ? propagation : undefined,
      constraints: constraints.value,
      resourceRules: constraints.value.resourceRules?.include ?? [],
      variables: variables.value,
      conditions: conditions.value,
    },
  };
}

function programs(
  cel: CelEngine,
  at: {
    field: string;
    items: JsonValue | undefined;
    names: string[];
    expectType: string | undefined;
    what: string;
    /** Variables are recorded in it; a typed expression is checked against it, as Kyverno's compiler checks (exact-types.ts). */
    types: ExactTypes;
  },
): Programs {
  const out: { name: string; program: CelProgram }[] = [];
  for (const [i, item] of list(at.items).entries()) {
    const field = `${at.field}[${i}].expression`;
    const expression = typeof item["expression"] === "string" ? item["expression"] : "";
    if (expression.trim() === "")
      return { ok: false, problem: problem(field, `${at.what}: ${field}: an expression is required`) };
    const r = cel.compile(expression, {
      variableNames: at.names,
      ...(at.expectType !== undefined ? { expectType: at.expectType } : {}),
    });
    const refusal =
      !r.ok || at.expectType === undefined
        ? undefined
        : at.types.refusal(r.value, [at.expectType], `of type ${at.expectType}`);
    const failed = !r.ok ? r.error.message : refusal;
    if (failed !== undefined)
      return { ok: false, problem: problem(field, `${at.what}: ${field}: compilation failed: ${failed}`) };
    if (!r.ok) continue;
    const name = typeof item["name"] === "string" ? item["name"] : "";
    if (at.expectType === undefined) at.types.variable(name, r.value);
    out.push({ name, program: r.value });
  }
  return { ok: true, value: out };
}

/** matchConstraints with every resourceRule's operations `*`: Kyverno matches a DeletingPolicy's objects as a CREATE whatever they say. */
function everyOperation(spec: JsonObject): JsonObject {
  const mc = spec["matchConstraints"];
  if (!isObject(mc)) return spec;
  const all = (rules: JsonValue | undefined): JsonValue[] | undefined =>
    Array.isArray(rules) ? rules.map((r) => (isObject(r) ? { ...r, operations: ["*"] } : r)) : undefined;
  const rules = all(mc["resourceRules"]);
  return rules === undefined ? spec : { ...spec, matchConstraints: { ...mc, resourceRules: rules } };
}

function isPropagation(v: JsonValue | undefined): v is DeletionPropagation {
  return v === "Foreground" || v === "Background" || v === "Orphan";
}

function list(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}
