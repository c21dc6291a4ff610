/**
 * The `cli.kyverno.io/v1alpha1` Test schema. Parsed strictly, as Kyverno does: unknown or removed
 * fields (`checks`, `patchedResource`) are errors, and a missing apiVersion/kind is a deprecated schema.
 * Any apiVersion is accepted (Kyverno does not check it). A results entry with neither `resources`
 * nor `resource` has `resources: []` and `allResources: true`: it checks every resource the rule matched.
 */
import { isObject, nearNames, type JsonObject, type JsonValue } from "../../engine/index.js";

export interface ExpectedResult {
  readonly policy: string;
  readonly rule: string;
  readonly result: string;
  readonly kind: string;
  readonly namespace: string;
  readonly resources: readonly string[];
  readonly patchedResources?: string;
  readonly generatedResource?: string;
  readonly generatedResources?: readonly string[];
  readonly cloneSourceResource?: string;
  readonly operation?: string;
  /**
   * `failOnMissingResources: true`: a mutated resource missing from `patchedResources` fails the
   * row; without it the row is not checked (compare.ts `unchecked`), as kyverno test leaves it.
   */
  readonly failOnMissingResources?: boolean;
  /** The entry names no resource: it checks every resource the policy's rule matched. */
  readonly allResources?: boolean;
  /**
   * The entry says its policy is a rule-less kind (`isValidatingPolicy: true`, …): every result of
   * the policy counts, whatever its rule name (Kyverno's `lookupRuleResponses`), e.g. a
   * ValidatingPolicy's "exception" result.
   */
  readonly anyRule?: boolean;
}

export interface TestSpec {
  readonly name: string;
  readonly policies: readonly string[];
  readonly resources: readonly string[];
  readonly targetResources: readonly string[];
  readonly exceptions: readonly string[];
  /** `jsonPayloads` files, then the deprecated `jsonPayload`: inputs for ValidatingPolicies with evaluation.mode JSON. */
  readonly jsonPayloads: readonly string[];
  /** `httpPayloads` files: HTTP requests for ValidatingPolicies with evaluation.mode HTTP. */
  readonly httpPayloads: readonly string[];
  /** `envoyPayloads` files: Envoy checks for ValidatingPolicies with evaluation.mode Envoy. */
  readonly envoyPayloads: readonly string[];
  readonly variables?: string;
  readonly values?: JsonObject;
  readonly userinfo?: string;
  readonly context?: string;
  readonly clusterResources: readonly string[];
  /** Files of the objects ValidatingAdmissionPolicy bindings take params from. */
  readonly paramResources: readonly string[];
  readonly apiCallResponses: readonly JsonObject[];
  readonly globalContextEntries: readonly JsonObject[];
  readonly results: readonly ExpectedResult[];
}

const TOP_FIELDS = new Set([
  "apiVersion",
  "kind",
  "metadata",
  "policies",
  "resources",
  "targetResources",
  "exceptions",
  "variables",
  "values",
  "userinfo",
  "context",
  "paramResources",
  "clusterResources",
  "jsonPayload",
  "jsonPayloads",
  "httpPayloads",
  "envoyPayloads",
  "apiCallResponses",
  "globalContextEntries",
  "results",
]);
const RESULT_FIELDS = new Set([
  "policy",
  "rule",
  "result",
  "kind",
  "resources",
  "resource",
  "resourceSpecs",
  "namespace",
  "patchedResources",
  "generatedResource",
  "generatedResources",
  "cloneSourceResource",
  "operation",
  "failOnMissingResources",
  "isValidatingAdmissionPolicy",
  "isMutatingAdmissionPolicy",
  "isValidatingPolicy",
  "isDeletingPolicy",
  "isImageValidatingPolicy",
  "isGeneratingPolicy",
  "isMutatingPolicy",
]);
const RESULTS = new Set(["pass", "fail", "skip", "warn", "error"]);
const RULELESS_FLAGS = [
  "isValidatingAdmissionPolicy",
  "isMutatingAdmissionPolicy",
  "isValidatingPolicy",
  "isDeletingPolicy",
  "isImageValidatingPolicy",
  "isGeneratingPolicy",
  "isMutatingPolicy",
];

type TestFileOutcome = { ok: true; spec: TestSpec; warnings: string[] } | { ok: false; errors: string[] };

/** Fields Kyverno 1.19 removed: still errors, saying what replaced them. */
const REMOVED: Readonly<Record<string, string>> = {
  checks: "checks was removed in Kyverno 1.19",
  patchedResource: "use patchedResources; `bylaw fix test PATH` rewrites it",
};

/**
 * `obj` with its keys as the schema spells them. Kyverno's CLI reads a field whose name differs
 * only in letter case (isMUtatingPolicy) as that field, and runs a suite with a field it does not
 * know: Bylaw does the same and warns, naming the field and the one meant. A removed field is an error.
 */
function knownFields(
  obj: JsonObject,
  known: ReadonlySet<string>,
  at: { path: string; errors: string[]; warnings: string[] },
): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    const where = at.path === "" ? k : `${at.path}.${k}`;
    const removed = REMOVED[k];
    if (known.has(k)) out[k] = v;
    else if (removed !== undefined) at.errors.push(`${where}: unknown field (${removed})`);
    else {
      const same = [...known].find((n) => n.toLowerCase() === k.toLowerCase());
      if (same !== undefined && out[same] === undefined) {
        out[same] = v;
        at.warnings.push(
          `${where}: read as ${same}, as Kyverno's CLI matches field names ignoring case; write ${same}`,
        );
        continue;
      }
      const near = nearNames(k, [...known]);
      const hint = near.length > 0 ? `; did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?` : "";
      at.warnings.push(`${where}: unknown field, ignored (as Kyverno's CLI ignores it)${hint}`);
    }
  }
  return out;
}

export function parseTestFile(doc: JsonValue): TestFileOutcome {
  const errors: string[] = [];
  if (!isObject(doc)) return { ok: false, errors: ["the test file must be a mapping"] };
  if (doc["apiVersion"] === undefined || doc["kind"] === undefined) {
    return {
      ok: false,
      errors: [
        "the test file uses a deprecated schema (no apiVersion/kind) — please migrate to apiVersion: cli.kyverno.io/v1alpha1, kind: Test (`bylaw fix test PATH` rewrites it)",
      ],
    };
  }
  // Kyverno reads any apiVersion (it does not check it), so Bylaw does too; only a string is required.
  if (typeof doc["apiVersion"] !== "string")
    errors.push(`apiVersion: must be a string, got ${JSON.stringify(doc["apiVersion"])}`);
  if (doc["kind"] !== "Test") errors.push(`kind: expected Test, got ${JSON.stringify(doc["kind"])}`);
  const warnings: string[] = [];
  doc = knownFields(doc, TOP_FIELDS, { path: "", errors, warnings });
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const results: ExpectedResult[] = [];
  const rawResults = doc["results"];
  if (rawResults !== undefined && rawResults !== null && !Array.isArray(rawResults))
    errors.push("results: must be a list");
  (Array.isArray(rawResults) ? rawResults : []).forEach((raw, i) => {
    const path = `results[${i}]`;
    if (!isObject(raw)) {
      errors.push(`${path}: must be a mapping`);
      return;
    }
    const r = knownFields(raw, RESULT_FIELDS, { path, errors, warnings });
    const result = str(r["result"]);
    if (!RESULTS.has(result))
      errors.push(
        `${path}.result: must be one of pass, fail, skip, warn, error; got ${JSON.stringify(r["result"] ?? null)}`,
      );
    const resources = strList(r["resources"]);
    if (resources.length === 0 && typeof r["resource"] === "string") resources.push(r["resource"]);
    const allResources = r["resources"] === undefined && r["resource"] === undefined;
    results.push({
      policy: str(r["policy"]),
      rule: str(r["rule"]),
      result,
      kind: str(r["kind"]),
      namespace: str(r["namespace"]),
      resources,
      ...opt("patchedResources", r["patchedResources"]),
      ...opt("generatedResource", r["generatedResource"]),
      ...(Array.isArray(r["generatedResources"]) ? { generatedResources: strList(r["generatedResources"]) } : {}),
      ...opt("cloneSourceResource", r["cloneSourceResource"]),
      ...opt("operation", r["operation"]),
      ...(r["failOnMissingResources"] === true ? { failOnMissingResources: true } : {}),
      ...(allResources ? { allResources } : {}),
      ...(RULELESS_FLAGS.some((f) => r[f] === true) ? { anyRule: true } : {}),
    });
  });
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    warnings,
    spec: {
      name: str(metadata["name"]),
      policies: strList(doc["policies"]),
      resources: strList(doc["resources"]),
      targetResources: strList(doc["targetResources"]),
      exceptions: strList(doc["exceptions"]),
      jsonPayloads: [
        ...strList(doc["jsonPayloads"]),
        ...(typeof doc["jsonPayload"] === "string" && doc["jsonPayload"] !== "" ? [doc["jsonPayload"]] : []),
      ],
      httpPayloads: strList(doc["httpPayloads"]),
      envoyPayloads: strList(doc["envoyPayloads"]),
      ...opt("variables", doc["variables"]),
      ...(isObject(doc["values"]) ? { values: doc["values"] } : {}),
      ...opt("userinfo", doc["userinfo"]),
      ...opt("context", doc["context"]),
      clusterResources: strList(doc["clusterResources"]),
      paramResources: strList(doc["paramResources"]),
      apiCallResponses: objList(doc["apiCallResponses"]),
      globalContextEntries: objList(doc["globalContextEntries"]),
      results,
    },
  };
}

function str(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

function strList(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function objList(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function opt<K extends string>(key: K, v: JsonValue | undefined): { [P in K]?: string } {
  return (typeof v === "string" && v !== "" ? { [key]: v } : {}) as { [P in K]?: string };
}
