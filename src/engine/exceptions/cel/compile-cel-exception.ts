/**
 * Compile one policies.kyverno.io PolicyException document once: its fields checked as the CRD
 * declares them (policyRefs required, each with kind and name; matchConditions with name and
 * expression; images, allowedValues; reportResult skip|pass; expiresAt RFC 3339), and every
 * matchConditions expression compiled in the CEL environment of the policies it excepts (Kyverno
 * compiles them with the policy: one that does not compile, or is not of type bool exactly, is the
 * exception's `refusal`, which fails the policies it names, with its field and position). The rest of
 * the CRD schema (policy/schema/check-schema.ts, as for a kyverno.io exception:
 * `exceptionSchemaProblems`) is checked too: wrong types and missing required fields are errors at
 * their path; fields the schema does not declare, at any depth, are warnings: the API server prunes
 * them.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { problem, type PolicyProblem } from "../../api/problem.js";
import type { CelEngine, CelProgram } from "../../cel/types.js";
import { matchConditionFields } from "../../cel/match-condition-fields.js";
import { ExactTypes } from "../../cel/exact-types.js";
import { exceptionKey } from "../messages.js";
import { exceptionSchemaProblems } from "../parse-exception.js";
import {
  CEL_EXCEPTION_API_VERSIONS,
  EXCEPTION_PRIORITY_LABEL,
  type CelExceptionApiVersion,
  type CompileCelExceptionOutcome,
  type CompiledCelException,
  type PolicyRef,
} from "./types.js";

/** RFC 3339 date-time, as the CRD's `format: date-time`. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** `cel` is the environment of the policies.kyverno.io kinds (engine.compileException passes the engine's). */
export function compileCelException(doc: JsonValue, cel: CelEngine, source?: string): CompileCelExceptionOutcome {
  const problems: PolicyProblem[] = [];
  if (!isObject(doc)) return { ok: false, problems: [problem("", "a PolicyException must be a mapping")] };
  const apiVersion = doc["apiVersion"];
  if (!CEL_EXCEPTION_API_VERSIONS.includes(apiVersion as CelExceptionApiVersion)) {
    problems.push(
      problem(
        "apiVersion",
        `expected one of ${CEL_EXCEPTION_API_VERSIONS.join(", ")} for a policies.kyverno.io PolicyException, got ${JSON.stringify(apiVersion ?? null)}`,
      ),
    );
  }
  if (doc["kind"] !== "PolicyException")
    problems.push(problem("kind", `expected PolicyException, got ${JSON.stringify(doc["kind"] ?? null)}`));
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  if (name === "") problems.push(problem("metadata.name", "Required value: name or generateName is required"));
  const namespace = typeof metadata["namespace"] === "string" ? metadata["namespace"] : "";
  const spec = doc["spec"];
  if (!isObject(spec)) {
    // A spec of another type is the schema's to word (its type); a missing one is required.
    if (spec === undefined || spec === null) problems.push(problem("spec", "Required value: spec is required"));
    const schema = exceptionSchemaProblems(doc, problems);
    if (![...problems, ...schema].some((p) => p.path === "spec")) problems.push(problem("spec", "must be a mapping"));
    return { ok: false, problems: [...problems, ...schema] };
  }

  const policyRefs = refsOf(spec["policyRefs"], problems);
  const images = strings(spec, "images", problems);
  const allowedValues = strings(spec, "allowedValues", problems);
  const reportResult = spec["reportResult"] ?? "skip";
  if (reportResult !== "skip" && reportResult !== "pass")
    problems.push(
      problem(
        "spec.reportResult",
        `Unsupported value: ${JSON.stringify(reportResult)}: supported values: "skip", "pass"`,
      ),
    );
  const expiresAt = expiryOf(spec["expiresAt"], problems);
  const properties = spec["properties"];
  if (
    properties !== undefined &&
    properties !== null &&
    (!isObject(properties) || Object.values(properties).some((v) => typeof v !== "string"))
  ) {
    problems.push(problem("spec.properties", "must be a map of strings"));
  }
  if (
    spec["evaluationMode"] !== undefined &&
    spec["evaluationMode"] !== null &&
    typeof spec["evaluationMode"] !== "string"
  )
    problems.push(problem("spec.evaluationMode", "must be a string"));
  const refusals: NonNullable<CompiledCelException["refusal"]>[] = [];
  const matchConditions = conditionsOf(spec["matchConditions"], cel, { problems, refusals });
  problems.push(...exceptionSchemaProblems(doc, problems));
  if (problems.some((p) => p.severity === "error")) return { ok: false, problems };
  const priority = priorityOf(metadata);
  const exception: CompiledCelException = {
    kind: "cel",
    name,
    namespace,
    key: exceptionKey(namespace, name),
    apiVersion: apiVersion as CelExceptionApiVersion,
    policyRefs,
    matchConditions,
    images,
    allowedValues,
    reportResult: reportResult === "pass" ? "pass" : "skip",
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    ...(priority !== undefined ? { priority } : {}),
    ...(refusals[0] !== undefined ? { refusal: refusals[0] } : {}),
    ...(source !== undefined ? { source } : {}),
    warnings: problems,
    document: doc,
  };
  return { ok: true, exception };
}

function refsOf(v: JsonValue | undefined, problems: PolicyProblem[]): PolicyRef[] {
  if (!Array.isArray(v)) {
    problems.push(
      problem(
        "spec.policyRefs",
        v === undefined || v === null
          ? "Required value: policyRefs names the policies the exception applies to"
          : "must be a list",
      ),
    );
    return [];
  }
  const out: PolicyRef[] = [];
  v.forEach((ref, i) => {
    const at = `spec.policyRefs[${i}]`;
    if (!isObject(ref)) return void problems.push(problem(at, "must be a mapping with kind and name"));
    for (const key of ["kind", "name"] as const) {
      if (typeof ref[key] !== "string" || ref[key] === "")
        problems.push(problem(`${at}.${key}`, `Required value: ${key} is required`));
    }
    if (typeof ref["kind"] === "string" && typeof ref["name"] === "string")
      out.push({ kind: ref["kind"], name: ref["name"] });
  });
  return out;
}

function strings(spec: JsonObject, key: string, problems: PolicyProblem[]): string[] {
  const v = spec[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
    problems.push(problem(`spec.${key}`, "must be a list of strings"));
    return [];
  }
  return v as string[];
}

function expiryOf(v: JsonValue | undefined, problems: PolicyProblem[]): number | undefined {
  if (v === undefined || v === null) return undefined;
  const at = typeof v === "string" && DATE_TIME.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(at)) {
    problems.push(
      problem(
        "spec.expiresAt",
        `Invalid value: ${JSON.stringify(v)}: spec.expiresAt in body must be of type date-time (RFC 3339, e.g. "2026-05-01T00:00:00Z")`,
      ),
    );
    return undefined;
  }
  return at;
}

/** Each condition compiled; one not of type bool exactly is a refusal (the policies it names fail), not a problem. */
function conditionsOf(
  v: JsonValue | undefined,
  cel: CelEngine,
  out: { readonly problems: PolicyProblem[]; readonly refusals: NonNullable<CompiledCelException["refusal"]>[] },
): CompiledCelException["matchConditions"] {
  const { problems, refusals } = out;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    problems.push(problem("spec.matchConditions", "must be a list"));
    return [];
  }
  const names = new Set<string>();
  const conditions: { name: string; program: CelProgram }[] = [];
  const types = new ExactTypes();
  v.forEach((c, i) => {
    const at = `spec.matchConditions[${i}]`;
    const fields = matchConditionFields(c, at, names, problems);
    if (fields === undefined) return;
    const { name, expression } = fields;
    const compiled = cel.compile(expression);
    if (!compiled.ok) {
      // Kyverno compiles the exception with each policy it names: those policies fail to compile.
      refusals.push({ field: `${at}.expression`, expression, reason: compiled.error.message });
      conditions.push({ name, program: refusedProgram(expression, compiled.error.message) });
      return;
    }
    const reason = types.refusal(compiled.value, ["bool"], "of type bool");
    if (reason !== undefined) refusals.push({ field: `${at}.expression`, expression, reason });
    // Kept even when refused, so a path that does not ask exceptionRefusal runs it as before.
    conditions.push({ name, program: compiled.value });
  });
  return conditions;
}

/** A condition that did not compile, for a path that does not ask exceptionRefusal: its every evaluation is the compile error (fail closed). */
function refusedProgram(expression: string, message: string): CelProgram {
  return {
    expression,
    outputType: "bool",
    evaluate: () => ({ ok: false, error: { kind: "cel-eval", message } }),
  };
}

function priorityOf(metadata: JsonObject): number | undefined {
  const labels = metadata["labels"];
  const v = isObject(labels) ? labels[EXCEPTION_PRIORITY_LABEL] : undefined;
  return typeof v === "string" && /^[+-]?\d+$/.test(v.trim()) ? Number.parseInt(v, 10) : undefined;
}
