/**
 * Turn a generated rule into its final shape (Kyverno `createRule` + `convertRule`): keep only
 * the fields autogen carries, drop empty ones, and rewrite `request.object.spec|metadata` paths
 * (and the oldObject ones, or CEL's `object.` / `oldObject.` forms) in every string of the rule,
 * keys included, so expressions read the pod template.
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import { asArray, asObject, isPresent, mapStrings } from "./json-copy.js";

type TemplateTarget = "Pod" | "CronJob";

type Rewrites = readonly (readonly [string, string])[];

const PREFIX: Readonly<Record<TemplateTarget, string>> = {
  Pod: "spec.template",
  CronJob: "spec.jobTemplate.spec.template",
};

function rewritesFor(target: TemplateTarget, cel: boolean): Rewrites {
  const t = PREFIX[target];
  const base = cel ? "" : "request.";
  return [
    [`${base}object.spec`, `${base}object.${t}.spec`],
    [`${base}oldObject.spec`, `${base}oldObject.${t}.spec`],
    [`${base}object.metadata`, `${base}object.${t}.metadata`],
    [`${base}oldObject.metadata`, `${base}oldObject.${t}.metadata`],
  ];
}

function rewriteText(s: string, rewrites: Rewrites): string {
  let out = s;
  for (const [from, to] of rewrites) out = out.split(from).join(to);
  return out;
}

/** Field order follows Kyverno's Rule type, so serialised output reads like Kyverno's. */
export function finalizeRule(rule: JsonObject, target: TemplateTarget): JsonObject {
  const out: JsonObject = { name: rule["name"] ?? "" };
  const keep = (key: string, value: JsonValue | undefined, wanted: boolean): void => {
    if (wanted && value !== undefined) out[key] = value;
  };
  keep("match", rule["match"], !isZeroMatch(rule["match"]));
  keep("exclude", rule["exclude"], isPresent(rule["exclude"]) && !isZeroMatch(rule["exclude"]));
  keep("context", rule["context"], asArray(rule["context"]).length > 0);
  keep("preconditions", rule["preconditions"], hasConditions(rule["preconditions"]));
  keep("celPreconditions", rule["celPreconditions"], asArray(rule["celPreconditions"]).length > 0);
  keep("mutate", rule["mutate"], hasAnyField(rule["mutate"]));
  keep("validate", rule["validate"], hasAnyField(rule["validate"]));
  keep("verifyImages", rule["verifyImages"], asArray(rule["verifyImages"]).length > 0);
  keep("skipBackgroundRequests", rule["skipBackgroundRequests"], typeof rule["skipBackgroundRequests"] === "boolean");
  keep("reportProperties", rule["reportProperties"], Object.keys(asObject(rule["reportProperties"]) ?? {}).length > 0);
  const cel = isPresent(asObject(rule["validate"])?.["cel"]);
  return mapStrings(out, (s) => rewriteText(s, rewritesFor(target, cel))) as JsonObject;
}

function hasAnyField(v: JsonValue | undefined): boolean {
  const o = asObject(v);
  return o !== undefined && Object.values(o).some(isPresent);
}

/** A match/exclude block equal to Go's zero value (empty lists and maps still count as written). */
function isZeroMatch(v: JsonValue | undefined): boolean {
  const m = asObject(v);
  if (m === undefined) return true;
  const listsAbsent = ["any", "all", "subjects", "roles", "clusterRoles"].every((k) => !isPresent(m[k]));
  const rd = asObject(m["resources"]) ?? {};
  const rdZero = Object.entries(rd).every(([k, x]) => !isPresent(x) || (k === "name" && x === ""));
  return listsAbsent && rdZero;
}

/** Preconditions worth carrying: a non-empty legacy list, or an any/all object with a list written. */
function hasConditions(v: JsonValue | undefined): boolean {
  if (Array.isArray(v)) return v.length > 0;
  const o = asObject(v);
  return o !== undefined && (isPresent(o["any"]) || isPresent(o["all"]));
}
