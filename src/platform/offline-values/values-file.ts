/**
 * The `cli.kyverno.io/v1alpha1` Values file: globalValues, per-policy rule values (and
 * foreachValues) and resource values, namespaceSelector labels and Namespace objects, and
 * `subresources` (values-subresources.ts).
 * Every values key is split the way Kyverno splits it (`annotations."a.b/c"` is two segments); a key
 * Kyverno cannot split is an error naming the key.
 */
import { isObject, type JsonObject, type JsonValue, splitVariableKey } from "../../engine/index.js";
import { parseSubresources, type SubresourceEntry } from "./values-subresources.js";

/** One `policies[].rules[]` entry. */
interface RuleValues {
  readonly name: string;
  readonly values: Readonly<Record<string, JsonValue>>;
  readonly foreachValues: Readonly<Record<string, readonly JsonValue[]>>;
}

export interface ValuesSpec {
  readonly globalValues: Readonly<Record<string, JsonValue>>;
  /** policy name → its rules' values, in file order */
  readonly ruleValues: ReadonlyMap<string, readonly RuleValues[]>;
  /** policy name → resource name → values */
  readonly resourceValues: ReadonlyMap<string, ReadonlyMap<string, Readonly<Record<string, JsonValue>>>>;
  /** namespace name → labels */
  readonly namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /**
   * namespace name → the Namespace object CEL reads as `namespaceObject`, as Kyverno's CLI resolves
   * it: a `namespaces:` entry whole (labels, annotations, …), else a `namespaceSelector:` entry as
   * a Namespace with its name and labels.
   */
  readonly namespaceObjects: ReadonlyMap<string, JsonObject>;
  /** `subresources[]`: a resource of a subresource's kind is evaluated as a request on its parent's subresource. */
  readonly subresources?: readonly SubresourceEntry[];
  /** `--set key=value` pairs: applied after the global and resource values, as Kyverno does. */
  readonly setValues?: Readonly<Record<string, JsonValue>>;
}

export const EMPTY_VALUES: ValuesSpec = {
  globalValues: {},
  ruleValues: new Map(),
  resourceValues: new Map(),
  namespaceLabels: new Map(),
  namespaceObjects: new Map(),
};

/**
 * The values of the rule `rule` of `policy`, as Kyverno's CLI finds them: the first values entry
 * whose name is the rule's, or whose `autogen-` / `autogen-cronjob-` variant the rule is.
 */
export function ruleValuesFor(values: ValuesSpec, policy: string, rule: string): RuleValues | undefined {
  return values.ruleValues
    .get(policy)
    ?.find((r) => rule === r.name || rule === `autogen-${r.name}` || rule === `autogen-cronjob-${r.name}`);
}

export function parseValues(doc: JsonValue): { values: ValuesSpec; warnings: string[]; errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  if (!isObject(doc)) return { values: EMPTY_VALUES, warnings, errors: ["the values file must be a mapping"] };
  if (doc["kind"] !== undefined && doc["kind"] !== "Values")
    warnings.push(`kind: expected Values, got ${JSON.stringify(doc["kind"])}; reading it as Values`);
  const checkKeys = (where: string, obj: JsonObject): void => {
    for (const k of Object.keys(obj)) {
      const split = splitVariableKey(k);
      if (!split.ok) errors.push(`${where}: key ${JSON.stringify(k)}: ${split.error}`);
    }
  };
  const ruleValues = new Map<string, RuleValues[]>();
  const resourceValues = new Map<string, Map<string, Record<string, JsonValue>>>();
  list(doc["policies"]).forEach((p, pi) => {
    const name = typeof p["name"] === "string" ? p["name"] : "";
    const rules = ruleValues.get(name) ?? [];
    list(p["rules"]).forEach((r, ri) => {
      if (typeof r["name"] !== "string") return;
      const where = `policies[${pi}].rules[${ri}]`;
      const vals = isObject(r["values"]) ? r["values"] : {};
      checkKeys(`${where}.values`, vals);
      const foreachValues: Record<string, JsonValue[]> = {};
      const rawForeach = r["foreachValues"];
      if (rawForeach !== undefined && rawForeach !== null && !isObject(rawForeach))
        errors.push(`${where}.foreachValues: must be a mapping of key to a list of values`);
      if (isObject(rawForeach)) {
        checkKeys(`${where}.foreachValues`, rawForeach);
        for (const [k, v] of Object.entries(rawForeach)) {
          if (Array.isArray(v)) foreachValues[k] = v;
          else errors.push(`${where}.foreachValues.${k}: must be a list (one value per foreach element)`);
        }
      }
      rules.push({ name: r["name"], values: vals, foreachValues });
    });
    ruleValues.set(name, rules);
    const resources = resourceValues.get(name) ?? new Map<string, Record<string, JsonValue>>();
    list(p["resources"]).forEach((r, ri) => {
      if (typeof r["name"] === "string" && isObject(r["values"])) {
        checkKeys(`policies[${pi}].resources[${ri}].values`, r["values"]);
        resources.set(r["name"], r["values"]);
      }
    });
    resourceValues.set(name, resources);
  });
  const globalValues = isObject(doc["globalValues"]) ? doc["globalValues"] : {};
  checkKeys("globalValues", globalValues);
  const namespaceLabels = new Map<string, Record<string, string>>();
  const namespaceObjects = new Map<string, JsonObject>();
  for (const ns of list(doc["namespaceSelector"])) {
    if (typeof ns["name"] !== "string") continue;
    const labels = strings(ns["labels"]);
    namespaceLabels.set(ns["name"], labels);
    namespaceObjects.set(ns["name"], { apiVersion: "v1", kind: "Namespace", metadata: { name: ns["name"], labels } });
  }
  // `namespaces:` entries take precedence over `namespaceSelector:` ones of the same name (Kyverno's CLI).
  for (const ns of list(doc["namespaces"])) {
    const md = isObject(ns["metadata"]) ? ns["metadata"] : {};
    if (typeof md["name"] !== "string") continue;
    namespaceLabels.set(md["name"], strings(md["labels"]));
    namespaceObjects.set(md["name"], { apiVersion: "v1", kind: "Namespace", ...ns });
  }
  const subresources = parseSubresources(doc["subresources"], errors);
  return {
    values: {
      globalValues,
      ruleValues,
      resourceValues,
      namespaceLabels,
      namespaceObjects,
      ...(subresources.length > 0 ? { subresources } : {}),
    },
    warnings,
    errors,
  };
}

function list(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function strings(v: JsonValue | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(v))
    for (const [k, val] of Object.entries(v)) out[k] = typeof val === "string" ? val : JSON.stringify(val);
  return out;
}
