/**
 * Variables a mutate-existing rule's targets may use (Kyverno `hasInvalidVariables` in
 * `pkg/validation/policy/validate.go`, with its texts): each target's apiVersion, kind, name,
 * namespace, uid and selector are resolved before any target exists, so a variable there must read
 * the request (`request.`), the element of a foreach, images, the target itself (`target.`), call a
 * function, or name one of the rule's context entries; `serviceAccountName` and
 * `serviceAccountNamespace` only when the policy has background scans off (a background scan has
 * no request). Kyverno checks the same offline (its CLI), and so does Bylaw.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { ContextEntry, Rule } from "../api/policy.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { wildcardMatch } from "../values/wildcard.js";

/** Kyverno's allowed variables in a mutate-existing rule (`allowedVariablesInTarget`); invalid-variables.ts uses them too. */
export const IN_TARGET =
  "request\\.|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|images\\.|image\\.|target\\.|([a-z_0-9]+\\()[^{}]";
/** The same with background scans on (`allowedVariablesBackgroundInTarget`). */
export const IN_TARGET_BACKGROUND =
  "request\\.|element|elementIndex|@|images|images\\.|image\\.|target\\.|([a-z_0-9]+\\()[^{}]";
const TARGET_FIELDS = ["apiVersion", "kind", "name", "namespace", "uid", "selector"] as const;
const VARIABLE = /\{\{((?:\{[^{}]*\}|[^{}])*)\}\}/g;

export function targetVariableProblems(rule: Rule, background: boolean, path: string): PolicyProblem[] {
  const targets = isObject(rule.mutate) ? rule.mutate["targets"] : undefined;
  if (!Array.isArray(targets)) return [];
  const source = background ? IN_TARGET_BACKGROUND : IN_TARGET;
  const allowed = new RegExp(source);
  const patterns = (rule.context ?? []).flatMap(contextPatterns);
  const out: PolicyProblem[] = [];
  targets.forEach((target, i) => {
    if (!isObject(target)) return;
    const invalid = TARGET_FIELDS.flatMap((f) => variablesIn(target[f])).find(
      (v) => !allowed.test(v) && !patterns.some((p) => wildcardMatch(p, v)),
    );
    if (invalid !== undefined)
      out.push(
        problem(
          `${path}.mutate.targets[${i}]`,
          `policy contains invalid variables: invalid variables defined at mutate.targets[${i}]: variable ${invalid} must match regex "${source}" or patterns [${patterns.join(" ")}]`,
        ),
      );
  });
  return out;
}

/** The variables a context entry defines, as Kyverno's mock context allows them. */
export function contextPatterns(entry: ContextEntry): string[] {
  if (entry.configMap !== undefined)
    return [`${entry.name}.data`, `${entry.name}.metadata`, `${entry.name}.data.*`, `${entry.name}.metadata.*`];
  if (
    entry.apiCall !== undefined ||
    entry.globalReference !== undefined ||
    entry.imageRegistry !== undefined ||
    entry.variable !== undefined
  )
    return [`${entry.name}*`];
  return [];
}

/** Each `{{ … }}` query in a field (strings anywhere inside it), trimmed, without double quotes. */
function variablesIn(value: JsonValue | undefined): string[] {
  if (typeof value === "string")
    return [...value.matchAll(VARIABLE)].map((m) => (m[1] ?? "").trim().replaceAll('"', ""));
  if (Array.isArray(value)) return value.flatMap(variablesIn);
  if (isObject(value)) return Object.values(value).flatMap(variablesIn);
  return [];
}
