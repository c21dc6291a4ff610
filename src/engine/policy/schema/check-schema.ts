/**
 * Check a Kyverno document against the OpenAPI v3 schema of its CRD and version, and word each
 * violation as the API server does, at its field path:
 *   spec.rules[0].validat: field not declared in schema; did you mean "validate"?
 *   spec.background: Invalid value: "string": spec.background in body must be of type boolean
 * The kinds: kyverno.io ClusterPolicy, Policy, PolicyException, CleanupPolicy, ClusterCleanupPolicy;
 * policies.kyverno.io ValidatingPolicy, MutatingPolicy, ImageValidatingPolicy, GeneratingPolicy,
 * DeletingPolicy (and their Namespaced kinds) and PolicyException, at every version their CRDs serve.
 * The validators are generated at build time (validators-data.ts, tools/gen-policy-schemas.mjs):
 * nothing is compiled when Bylaw starts.
 */
import { isObject, type JsonValue } from "../../api/json.js";
import type { PolicyDocument } from "../../api/policy.js";
import { problem, type PolicyProblem } from "../../api/problem.js";
import { didYouMean } from "./did-you-mean.js";
import type { SchemaError, SchemaValidator } from "./types.js";
import { VALIDATORS } from "./validators-data.js";

/** The validator for the document's apiVersion and kind (kyverno.io, policies.kyverno.io), or undefined. */
function schemaFor(doc: JsonValue): SchemaValidator | undefined {
  if (!isObject(doc)) return undefined;
  const kind = doc["kind"];
  const apiVersion = doc["apiVersion"];
  if (typeof kind !== "string" || typeof apiVersion !== "string") return undefined;
  const key = `${apiVersion}/${kind}`;
  return Object.hasOwn(VALIDATORS, key) ? VALIDATORS[key] : undefined;
}

/**
 * The validator of a kyverno.io ClusterPolicy/Policy: the CRD schema is what `PolicyDocument`
 * (api/policy.ts) types, so a document it accepts is one.
 */
export function policySchemaFor(doc: JsonValue): SchemaValidator<PolicyDocument> | undefined {
  if (!isObject(doc) || (doc["kind"] !== "ClusterPolicy" && doc["kind"] !== "Policy")) return undefined;
  return schemaFor(doc) as SchemaValidator<PolicyDocument> | undefined;
}

/**
 * Every schema violation of the document, or undefined when no schema is known for its kind and
 * version (the caller reports the apiVersion/kind). Errors; the caller may lower unknown fields.
 */
export function schemaProblems(doc: JsonValue, validate = schemaFor(doc)): PolicyProblem[] | undefined {
  if (validate === undefined) return undefined;
  if (validate(doc)) return [];
  const seen = new Set<string>();
  const out: PolicyProblem[] = [];
  for (const e of validate.errors ?? []) {
    const p = describe(e, doc);
    if (p === undefined) continue;
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}

/** Whether a problem from schemaProblems is an undeclared field (rather than a wrong value). */
export function isUndeclaredField(p: PolicyProblem): boolean {
  return p.message.startsWith(UNDECLARED);
}

const UNDECLARED = "field not declared in schema";

function describe(e: SchemaError, doc: JsonValue): PolicyProblem | undefined {
  // Errors of the branches of a oneOf/anyOf (and ajv's placeholders inside `not`) are not the answer:
  // the oneOf/anyOf error itself is; nor is the "if null … else" wrapper (tools/gen-policy-schemas.mjs).
  if (e.keyword === undefined || e.keyword === "if" || /\/(oneOf|anyOf)\/\d+\//.test(schemaPath(e))) return undefined;
  const path = fieldPath(e.instancePath, doc);
  const where = path === "" ? "<root>" : path;
  const value = e.data;
  switch (e.keyword) {
    case "additionalProperties": {
      const key = String(e.params["additionalProperty"]);
      const names = Object.keys(e.parentSchema?.properties ?? {});
      return problem(join(path, key), `${UNDECLARED}; ${didYouMean(key, names)}`);
    }
    case "required":
      return problem(join(path, String(e.params["missingProperty"])), "Required value");
    case "type": {
      const types = e.params["type"];
      const wanted = (Array.isArray(types) ? types : [types]).filter((t) => t !== "null").join(" or ");
      return problem(
        path,
        `Invalid value: ${JSON.stringify(typeName(value))}: ${where} in body must be of type ${wanted}`,
      );
    }
    case "enum": {
      const allowed = (Array.isArray(e.params["allowedValues"]) ? e.params["allowedValues"] : []).filter(
        (v) => v !== null,
      );
      return problem(
        path,
        `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((v) => JSON.stringify(v)).join(", ")}`,
      );
    }
    case "minItems":
      return problem(
        path,
        `Invalid value: ${Array.isArray(value) ? value.length : short(value)}: ${where} in body should have at least ${String(e.params["limit"])} items`,
      );
    case "maxLength":
      return problem(path, `Too long: may not be more than ${String(e.params["limit"])} characters`);
    case "not":
      return problem(
        path,
        `Invalid value: ${JSON.stringify(typeName(value))}: ${where} in body must not validate the schema (not)${notHint(e)}`,
      );
    case "oneOf":
      return problem(
        path,
        `Invalid value: ${JSON.stringify(typeName(value))}: ${where} in body must validate one and only one schema (oneOf)${oneOfHint(e, value)}`,
      );
    default:
      return problem(
        path,
        `Invalid value: ${short(value)}: ${where} in body ${(e.message ?? e.keyword).replace(/^must/, "should")}`,
      );
  }
}

function schemaPath(e: SchemaError): string {
  const p = (e as { schemaPath?: unknown }).schemaPath;
  return typeof p === "string" ? p : "";
}

/** `not: {required: [any, all]}`: which fields may not be set together. */
function notHint(e: SchemaError): string {
  const not = (e.parentSchema as { not?: { required?: unknown } } | undefined)?.not;
  const fields = Array.isArray(not?.required) ? not.required.map((f) => JSON.stringify(f)) : [];
  return fields.length > 1 ? `: ${fields.join(" and ")} may not be set together` : "";
}

/** `oneOf: [{required: [configMap]}, {required: [apiCall]}, …]`: exactly one of these fields. */
function oneOfHint(e: SchemaError, value: unknown): string {
  const branches = (e.parentSchema as { oneOf?: unknown } | undefined)?.oneOf;
  if (!Array.isArray(branches)) return "";
  const fields = branches.flatMap((b: { required?: unknown }) =>
    Array.isArray(b.required) && b.required.length === 1 ? [String(b.required[0])] : [],
  );
  if (fields.length !== branches.length) return "";
  const set = isObject(value) ? fields.filter((f) => Object.hasOwn(value as object, f)) : [];
  return `: set exactly one of ${fields.map((f) => JSON.stringify(f)).join(", ")}${set.length > 1 ? ` (found ${set.map((f) => JSON.stringify(f)).join(", ")})` : ""}`;
}

/** Kubernetes' field path from a JSON Pointer: `/spec/rules/0/name` → `spec.rules[0].name`. */
export function fieldPath(pointer: string, doc: JsonValue): string {
  if (pointer === "") return "";
  let path = "";
  let at: JsonValue | undefined = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(at)) {
      path += `[${seg}]`;
      at = at[Number(seg)];
    } else {
      path = join(path, seg);
      at = isObject(at) && Object.hasOwn(at, seg) ? at[seg] : undefined;
    }
  }
  return path;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function short(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
