/**
 * Read a PolicyException document into typed parts. Required fields (the CRD's `exceptions`,
 * `match`, `policyName`, `ruleNames`) and the apiVersion/kind are errors. The rest of the CRD
 * schema (policy/schema/check-schema.ts) is checked by `exceptionSchemaProblems`: wrong types and
 * values are errors at their path; fields the schema does not declare are warnings, because the
 * API server prunes them and Kyverno never sees them.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { AnyAllConditions, MatchResources, ResourceFilter } from "../api/policy.js";
import { problem, warning, type PolicyProblem } from "../api/problem.js";
import { isUndeclaredField, schemaProblems } from "../policy/schema/check-schema.js";
import {
  EXCEPTION_API_VERSIONS,
  type ExceptionApiVersion,
  type ExceptionEntry,
  type PodSecurityExclusion,
} from "./types.js";

export interface ParsedException {
  readonly apiVersion: ExceptionApiVersion;
  readonly name: string;
  readonly namespace: string;
  readonly entries: readonly ExceptionEntry[];
  /** Only `any` and `all`: the v2 schema has no legacy `resources` form. */
  readonly match: MatchResources;
  readonly conditions?: AnyAllConditions;
  readonly podSecurity: readonly PodSecurityExclusion[];
  readonly background: boolean;
  readonly document: JsonObject;
}

export function parseException(doc: JsonValue): { parsed?: ParsedException; problems: PolicyProblem[] } {
  const problems: PolicyProblem[] = [];
  const parsed = parseChecked(doc, problems);
  if (parsed === undefined || problems.some((p) => p.severity === "error")) return { problems };
  return { problems, parsed };
}

/**
 * The CRD schema's findings at paths where neither this parser nor Kyverno's checks
 * (check-exception.ts) said anything: their words are kept. Undeclared fields are warnings.
 */
export function exceptionSchemaProblems(doc: JsonValue, said: readonly PolicyProblem[]): PolicyProblem[] {
  const paths = new Set(said.map((p) => p.path));
  return (schemaProblems(doc) ?? [])
    .filter((p) => !paths.has(p.path))
    .map((p) => (isUndeclaredField(p) ? warning(p.path, `${p.message} (ignored: the API server prunes it)`) : p));
}

function parseChecked(doc: JsonValue, problems: PolicyProblem[]): ParsedException | undefined {
  if (!isObject(doc)) {
    problems.push(problem("", "a PolicyException must be a mapping"));
    return undefined;
  }
  const apiVersion = doc["apiVersion"];
  if (!EXCEPTION_API_VERSIONS.includes(apiVersion as ExceptionApiVersion)) {
    problems.push(
      problem(
        "apiVersion",
        `expected kyverno.io/v2 or kyverno.io/v2beta1 for a PolicyException, got ${JSON.stringify(apiVersion ?? null)}`,
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
    problems.push(problem("spec", spec === undefined ? "Required value" : "must be a mapping"));
    return undefined;
  }
  const entries = parseEntries(spec["exceptions"], problems);
  const match = parseMatch(spec["match"], problems);
  const conditions = parseConditions(spec["conditions"], problems);
  const podSecurity = parsePodSecurity(spec["podSecurity"], problems);
  const background = spec["background"];
  if (background !== undefined && background !== null && typeof background !== "boolean") {
    problems.push(problem("spec.background", `must be a boolean, got ${JSON.stringify(background)}`));
  }
  return {
    apiVersion: apiVersion as ExceptionApiVersion,
    name,
    namespace,
    entries,
    match,
    ...(conditions !== undefined ? { conditions } : {}),
    podSecurity,
    background: background !== false,
    document: doc,
  };
}

function parseEntries(raw: JsonValue | undefined, problems: PolicyProblem[]): ExceptionEntry[] {
  if (raw === undefined || raw === null) {
    problems.push(problem("spec.exceptions", "Required value"));
    return [];
  }
  if (!Array.isArray(raw)) {
    problems.push(problem("spec.exceptions", "must be a list of {policyName, ruleNames}"));
    return [];
  }
  if (raw.length === 0)
    problems.push(warning("spec.exceptions", "the list is empty: the exception applies to no policy"));
  const entries: ExceptionEntry[] = [];
  raw.forEach((e, i) => {
    const path = `spec.exceptions[${i}]`;
    if (!isObject(e)) {
      problems.push(problem(path, "must be a mapping with policyName and ruleNames"));
      return;
    }
    const policyName = e["policyName"];
    if (typeof policyName !== "string" || policyName === "") {
      problems.push(problem(`${path}.policyName`, "Required value: An exception requires a policy name"));
    }
    const ruleNames = stringList(e["ruleNames"], `${path}.ruleNames`, problems, true);
    if (typeof policyName === "string") entries.push({ policyName, ruleNames });
  });
  return entries;
}

function parseMatch(raw: JsonValue | undefined, problems: PolicyProblem[]): MatchResources {
  if (raw === undefined || raw === null) {
    problems.push(problem("spec.match", "Required value"));
    return {};
  }
  if (!isObject(raw)) {
    problems.push(problem("spec.match", "must be a mapping with any or all"));
    return {};
  }
  for (const k of Object.keys(raw)) {
    if (k === "any" || k === "all") continue;
    const legacy = k === "resources" || k === "subjects" || k === "roles" || k === "clusterRoles";
    problems.push(
      warning(
        `spec.match.${k}`,
        legacy
          ? "ignored: a PolicyException's match takes only any/all lists (write it under match.any)"
          : "unknown field, ignored",
      ),
    );
  }
  const out: { any?: readonly ResourceFilter[]; all?: readonly ResourceFilter[] } = {};
  for (const mode of ["any", "all"] as const) {
    const list = raw[mode];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || !list.every(isObject)) {
      problems.push(problem(`spec.match.${mode}`, "must be a list of resource filters"));
      continue;
    }
    out[mode] = list;
  }
  if ((out.any ?? []).length === 0 && (out.all ?? []).length === 0) {
    problems.push(warning("spec.match", "neither match.any nor match.all has a filter: the exception selects nothing"));
  }
  return out;
}

function parseConditions(raw: JsonValue | undefined, problems: PolicyProblem[]): AnyAllConditions | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) {
    problems.push(problem("spec.conditions", "must be a mapping with any and/or all lists"));
    return undefined;
  }
  for (const mode of ["any", "all"] as const) {
    const v = raw[mode];
    if (v !== undefined && v !== null && !Array.isArray(v))
      problems.push(problem(`spec.conditions.${mode}`, "must be a list of conditions"));
  }
  return raw;
}

function parsePodSecurity(raw: JsonValue | undefined, problems: PolicyProblem[]): PodSecurityExclusion[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.push(problem("spec.podSecurity", "must be a list of {controlName, images, restrictedField, values}"));
    return [];
  }
  const out: PodSecurityExclusion[] = [];
  raw.forEach((e, i) => {
    const path = `spec.podSecurity[${i}]`;
    if (!isObject(e)) {
      problems.push(problem(path, "must be a mapping with controlName"));
      return;
    }
    const controlName = e["controlName"];
    if (typeof controlName !== "string" || controlName === "") {
      problems.push(problem(`${path}.controlName`, "Required value"));
      return;
    }
    const restrictedField = e["restrictedField"];
    if (restrictedField !== undefined && restrictedField !== null && typeof restrictedField !== "string") {
      problems.push(problem(`${path}.restrictedField`, "must be a string"));
    }
    const images =
      e["images"] === undefined || e["images"] === null
        ? undefined
        : stringList(e["images"], `${path}.images`, problems, false);
    const values =
      e["values"] === undefined || e["values"] === null
        ? undefined
        : stringList(e["values"], `${path}.values`, problems, false);
    out.push({
      controlName,
      ...(images !== undefined ? { images } : {}),
      ...(typeof restrictedField === "string" && restrictedField !== "" ? { restrictedField } : {}),
      ...(values !== undefined ? { values } : {}),
    });
  });
  return out;
}

function stringList(raw: JsonValue | undefined, path: string, problems: PolicyProblem[], required: boolean): string[] {
  if (raw === undefined || raw === null) {
    if (required) problems.push(problem(path, "Required value"));
    return [];
  }
  if (!Array.isArray(raw) || !raw.every((s) => typeof s === "string")) {
    problems.push(problem(path, "must be a list of strings"));
    return [];
  }
  return raw;
}
