/**
 * Build one autogen rule from a Pod rule (Kyverno `generateRule`): rename it, point its match
 * and exclude kinds at the controllers, and nest its pattern/overlay under the pod template.
 * Rules of a type autogen cannot carry yield undefined.
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import { asArray, asObject, asString, cloneJson, isPresent } from "./json-copy.js";
import { qualifyKinds } from "./kind-names.js";
import { shiftReferences } from "./shift-references.js";

/** Rewrites the kinds of an any[]/all[] filter list (kinds are plain names; qualify them). */
export type FilterRewrite = (filters: JsonValue[], kinds: readonly string[]) => JsonValue[];

interface Nesting {
  /** Key under `spec` that holds the pod template: `template` or `jobTemplate`. */
  readonly templateKey: string;
  /** What `$(…)` references are shifted by: `spec/template` or `spec/jobTemplate/spec/template`. */
  readonly shift: string;
}

export function generateRule(
  name: string,
  source: JsonObject,
  nesting: Nesting,
  kinds: readonly string[],
  rewrite: FilterRewrite,
): JsonObject | undefined {
  const rule = cloneJson(source);
  rule["name"] = name;
  rule["match"] = retarget(asObject(rule["match"]) ?? {}, kinds, rewrite, true);
  const exclude = asObject(rule["exclude"]);
  if (exclude !== undefined) rule["exclude"] = retarget(exclude, kinds, rewrite, false);

  const wrap = (v: JsonValue): JsonObject => ({ spec: { [nesting.templateKey]: v } });
  const mutate = asObject(rule["mutate"]);
  if (mutate !== undefined) {
    const smp = mutate["patchStrategicMerge"];
    if (isPresent(smp)) {
      rule["mutate"] = { patchStrategicMerge: wrap(smp) };
      return rule;
    }
    const foreach = asArray(mutate["foreach"]);
    if (foreach.length > 0) {
      rule["mutate"] = { foreach: foreach.map((fe) => nestForeachMutation(asObject(fe) ?? {}, wrap)) };
      return rule;
    }
  }
  const validate = asObject(rule["validate"]);
  if (validate !== undefined) {
    const nested = nestValidation(validate, nesting, wrap);
    if (nested !== undefined) {
      rule["validate"] = nested;
      return rule;
    }
  }
  return isPresent(rule["verifyImages"]) ? rule : undefined;
}

/** any[] / all[] go through the rewrite; the legacy form gets the kinds directly. */
function retarget(block: JsonObject, kinds: readonly string[], rewrite: FilterRewrite, isMatch: boolean): JsonObject {
  const any = asArray(block["any"]);
  const all = asArray(block["all"]);
  if (any.length > 0) return { ...block, any: rewrite(any, kinds) };
  if (all.length > 0) return { ...block, all: rewrite(all, kinds) };
  const resources = asObject(block["resources"]) ?? {};
  if (!isMatch && asArray(resources["kinds"]).length === 0) return block;
  return { ...block, resources: { ...resources, kinds: qualifyKinds(kinds) } };
}

function nestForeachMutation(fe: JsonObject, wrap: (v: JsonValue) => JsonObject): JsonObject {
  const out: JsonObject = {};
  if (asString(fe["list"]) !== "") out["list"] = fe["list"] ?? "";
  if (asArray(fe["context"]).length > 0) out["context"] = fe["context"] ?? [];
  if (isPresent(fe["preconditions"])) out["preconditions"] = fe["preconditions"];
  out["patchStrategicMerge"] = wrap(fe["patchStrategicMerge"] ?? null);
  return out;
}

/** The failure-handling fields every rebuilt validation keeps. */
function keptValidationFields(v: JsonObject, message: string): JsonObject {
  const out: JsonObject = {};
  if (message !== "") out["message"] = message;
  for (const key of ["failureAction", "failureActionOverrides", "allowExistingViolations"]) {
    const value = v[key];
    if (isPresent(value)) out[key] = value;
  }
  return out;
}

function nestValidation(v: JsonObject, nesting: Nesting, wrap: (v: JsonValue) => JsonObject): JsonObject | undefined {
  const message = (pivot: string): string => shiftReferences(asString(v["message"]), nesting.shift, pivot);
  if (isPresent(v["pattern"])) return { ...keptValidationFields(v, message("pattern")), pattern: wrap(v["pattern"]) };
  if (isPresent(v["deny"])) return { ...keptValidationFields(v, message("deny")), deny: v["deny"] };
  const podSecurity = asObject(v["podSecurity"]);
  if (podSecurity !== undefined) {
    const ps: JsonObject = {};
    if (asString(podSecurity["level"]) !== "") ps["level"] = podSecurity["level"] ?? "";
    if (asString(podSecurity["version"]) !== "") ps["version"] = podSecurity["version"] ?? "";
    if (asArray(podSecurity["exclude"]).length > 0) ps["exclude"] = podSecurity["exclude"] ?? [];
    return { ...keptValidationFields(v, message("podSecurity")), podSecurity: ps };
  }
  if (isPresent(v["anyPattern"])) {
    const out = keptValidationFields(v, message("anyPattern"));
    const patterns = asArray(v["anyPattern"]);
    if (patterns.length > 0) out["anyPattern"] = patterns.map(wrap);
    return out;
  }
  const foreach = asArray(v["foreach"]);
  if (foreach.length > 0) return { ...keptValidationFields(v, message("pattern")), foreach };
  if (isPresent(v["cel"])) return v;
  const assert = asObject(v["assert"]);
  if (assert !== undefined) return { ...v, assert: nestAssertion(assert, nesting.templateKey) };
  return undefined;
}

/** In a kyverno-json assertion tree, `object` and `oldObject` move under the template. */
function nestAssertion(tree: JsonObject, templateKey: string): JsonObject {
  const out: JsonObject = { ...tree };
  for (const node of ["object", "oldObject"]) {
    const value = asObject(tree[node]);
    if (value !== undefined) out[node] = { spec: { [templateKey]: { ...value } } };
  }
  return out;
}
