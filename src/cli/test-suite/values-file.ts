/**
 * The `cli.kyverno.io/v1alpha1` Values file: globalValues, per-policy rule and resource values,
 * namespaceSelector labels and Namespace objects.
 */
import { isObject, type JsonObject, type JsonValue } from "../../engine/index.js";

export interface ValuesSpec {
  readonly globalValues: Readonly<Record<string, JsonValue>>;
  /** policy name → rule name → values */
  readonly ruleValues: ReadonlyMap<string, ReadonlyMap<string, Readonly<Record<string, JsonValue>>>>;
  /** policy name → resource name → values */
  readonly resourceValues: ReadonlyMap<string, ReadonlyMap<string, Readonly<Record<string, JsonValue>>>>;
  /** namespace name → labels */
  readonly namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

export const EMPTY_VALUES: ValuesSpec = { globalValues: {}, ruleValues: new Map(), resourceValues: new Map(), namespaceLabels: new Map() };

export function parseValues(doc: JsonValue): { values: ValuesSpec; warnings: string[] } {
  const warnings: string[] = [];
  if (!isObject(doc)) return { values: EMPTY_VALUES, warnings: ["the values file must be a mapping"] };
  if (doc["kind"] !== undefined && doc["kind"] !== "Values") warnings.push(`kind: expected Values, got ${JSON.stringify(doc["kind"])}; reading it as Values`);
  const ruleValues = new Map<string, Map<string, Record<string, JsonValue>>>();
  const resourceValues = new Map<string, Map<string, Record<string, JsonValue>>>();
  for (const p of list(doc["policies"])) {
    const name = typeof p["name"] === "string" ? p["name"] : "";
    const rules = ruleValues.get(name) ?? new Map<string, Record<string, JsonValue>>();
    for (const r of list(p["rules"])) {
      if (typeof r["name"] === "string" && isObject(r["values"])) rules.set(r["name"], r["values"]);
    }
    ruleValues.set(name, rules);
    const resources = resourceValues.get(name) ?? new Map<string, Record<string, JsonValue>>();
    for (const r of list(p["resources"])) {
      if (typeof r["name"] === "string" && isObject(r["values"])) resources.set(r["name"], r["values"]);
    }
    resourceValues.set(name, resources);
  }
  const namespaceLabels = new Map<string, Record<string, string>>();
  for (const ns of list(doc["namespaceSelector"])) {
    if (typeof ns["name"] === "string") namespaceLabels.set(ns["name"], strings(ns["labels"]));
  }
  for (const ns of list(doc["namespaces"])) {
    const md = isObject(ns["metadata"]) ? ns["metadata"] : {};
    if (typeof md["name"] === "string") namespaceLabels.set(md["name"], strings(md["labels"]));
  }
  return {
    values: { globalValues: isObject(doc["globalValues"]) ? doc["globalValues"] : {}, ruleValues, resourceValues, namespaceLabels },
    warnings,
  };
}

function list(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function strings(v: JsonValue | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(v)) for (const [k, val] of Object.entries(v)) out[k] = typeof val === "string" ? val : JSON.stringify(val);
  return out;
}
