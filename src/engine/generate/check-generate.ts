/**
 * Static problems of a generate block, found when the policy is loaded (Kyverno
 * `pkg/policy/generate/validate.go`). Each message starts with the field path it concerns.
 * Not checked here, because they need the cluster's discovery data: whether the kind is
 * namespaced (namespace required / forbidden) and whether cloneList kinds share one scope.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { LabelSelector } from "../api/policy.js";
import { parseAnchor } from "../anchors/index.js";
import { readGenerate, type FieldProblem } from "./read-generate.js";
import type { GenerateSpec } from "./types.js";

const VARIABLE = /\{\{/;

export function checkGenerate(generate: JsonObject, path: string): string[] {
  return generateProblems(generate, path, true).map((p) => `${p.path}: ${p.message}`);
}

function generateProblems(generate: JsonObject, path: string, topLevel: boolean): FieldProblem[] {
  const { spec, problems } = readGenerate(generate, path);
  const out = [...problems];
  const sources = sourcesOf(spec, topLevel);
  // Neither is valid, as in Kyverno: the rule generates an object with metadata only.
  if (sources.length > 1) {
    out.push({ path, message: `only one of ${allowed(topLevel)} can be specified, found ${sources.join(" and ")}` });
  }
  const usesCloneList = spec.cloneList !== undefined;
  if (usesCloneList && spec.cloneList.kinds.length === 0) {
    out.push({
      path: `${path}.cloneList.kinds`,
      message: "kinds cannot be empty: list the kinds to clone, e.g. v1/Secret",
    });
  }
  if (usesCloneList) {
    if (spec.name !== "")
      out.push({
        path: `${path}.name`,
        message: "with cloneList, generate.name should not be specified (each copy keeps its source's name)",
      });
    if (spec.kind !== "")
      out.push({
        path: `${path}.kind`,
        message: "with cloneList, generate.kind should not be specified (use cloneList.kinds)",
      });
    if (spec.cloneList.selector !== undefined && selectorHasWildcard(spec.cloneList.selector)) {
      out.push({ path: `${path}.cloneList.selector`, message: "wildcard characters `*/?` not supported" });
    }
  } else if (!spec.hasForeach || !topLevel) {
    for (const field of ["name", "kind", "apiVersion"] as const) {
      if (spec[field] === "") out.push({ path: `${path}.${field}`, message: `${field} cannot be empty` });
    }
  }
  if (spec.data !== undefined) out.push(...dataProblems(spec.data, `${path}.data`));
  if (topLevel && spec.hasForeach) out.push(...foreachProblems(generate["foreach"], `${path}.foreach`));
  return out;
}

function sourcesOf(spec: GenerateSpec, topLevel: boolean): string[] {
  const found: string[] = [];
  if (spec.data !== undefined) found.push("data");
  if (spec.clone !== undefined) found.push("clone");
  if (spec.cloneList !== undefined) found.push("cloneList");
  if (topLevel && spec.hasForeach) found.push("foreach");
  return found;
}

function allowed(topLevel: boolean): string {
  return topLevel ? "data, clone, cloneList or foreach" : "data, clone or cloneList";
}

function dataProblems(data: JsonValue, path: string): FieldProblem[] {
  if (typeof data === "string" && VARIABLE.test(data)) return [];
  if (!isObject(data)) return [{ path, message: "data must be an object: the body of the resource to generate" }];
  const out: FieldProblem[] = [];
  const meta = data["metadata"];
  if (meta !== undefined && meta !== null && !isObject(meta) && !(typeof meta === "string" && VARIABLE.test(meta))) {
    out.push({ path: `${path}.metadata`, message: "metadata must be an object" });
  }
  const stack: [JsonValue, string][] = [[data, path]];
  while (stack.length > 0) {
    const [v, at] = stack.pop() as [JsonValue, string];
    if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, `${at}[${i}]`]));
    else if (isObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (parseAnchor(k) !== undefined)
          out.push({
            path: `${at}.${k}`,
            message: `anchors not supported on generate resources: remove the anchor from "${k}"`,
          });
        stack.push([x, `${at}.${k}`]);
      }
    }
  }
  return out;
}

function foreachProblems(foreach: JsonValue | undefined, path: string): FieldProblem[] {
  if (!Array.isArray(foreach)) return [{ path, message: "foreach must be a list" }];
  const out: FieldProblem[] = [];
  foreach.forEach((el, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(el)) {
      out.push({
        path: at,
        message:
          "each foreach entry must be an object {list, apiVersion, kind, name, namespace, data | clone | cloneList}",
      });
      return;
    }
    if (typeof el["list"] !== "string" || el["list"] === "")
      out.push({ path: `${at}.list`, message: "list is required: a JMESPath expression giving the elements" });
    out.push(...generateProblems(el, at, false));
  });
  return out;
}

function selectorHasWildcard(s: LabelSelector): boolean {
  const wild = (x: string): boolean => x.includes("*") || x.includes("?");
  if (Object.entries(s.matchLabels ?? {}).some(([k, v]) => wild(k) || wild(v))) return true;
  return (s.matchExpressions ?? []).some((e) => wild(e.key) || (e.values ?? []).some(wild));
}
