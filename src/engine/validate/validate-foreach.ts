/**
 * validate.foreach: evaluate `list`, then validate each element with `element`/`elementIndex`
 * (and `element<N>`/`elementIndex<N>` for nesting level N) in scope. The first element that does not
 * pass ends the loop. Elements skipped by preconditions or anchors do not count as applied; if no
 * element applied, the rule gives no result.
 */
import type { JsonValue } from "../api/json.js";
import type { ForEachValidation } from "../api/policy.js";
import { evaluateConditions } from "../conditions/index.js";
import { loadContextEntries } from "../context/load-entries.js";
import { substituteAll, substituteString, type SubstitutionScope } from "../variables/index.js";
import { passMessage } from "./messages.js";
import { runValidation } from "./run-validation.js";
import type { ValidateOutcome, ValidateScope } from "./types.js";

const MAX_DEPTH = 8;

export function validateForEach(list: readonly ForEachValidation[], message: string | undefined, scope: ValidateScope, depth: number): ValidateOutcome | undefined {
  if (depth >= MAX_DEPTH) return { status: "error", message: `foreach nesting deeper than ${MAX_DEPTH} levels in rule ${scope.ruleName}` };
  let applied = 0;
  for (const fe of list) {
    const elements = evaluateList(fe.list, scope.vars);
    if (elements.kind === "error") return { status: "error", message: `failed to evaluate list ${fe.list}: ${elements.message}` };
    if (elements.kind === "missing") continue;
    for (let index = 0; index < elements.items.length; index++) {
      const element = elements.items[index];
      if (element === null || element === undefined) continue;
      const withElement: SubstitutionScope = {
        ...scope.vars,
        data: {
          ...scope.vars.data,
          element,
          elementIndex: index,
          [`element${depth}`]: element,
          [`elementIndex${depth}`]: index,
        },
      };
      let vars = withElement;
      if (fe.context !== undefined && fe.context.length > 0) {
        const loaded = loadContextEntries(fe.context, withElement);
        if (!loaded.ok) return { status: "error", message: `failed to load context: ${loaded.error.message}` };
        vars = { ...withElement, data: loaded.value };
      }
      if (fe.preconditions !== undefined) {
        const pre = evaluateConditions(fe.preconditions, (v) => substituteAll(v, vars));
        if (!pre.ok || !pre.value.met) continue;
      }
      const target = fe.elementScope === false ? scope.target : element;
      const outcome = runValidation(fe, message, { ...scope, target, vars }, depth + 1);
      if (outcome === undefined || outcome.status === "skip") continue;
      if (outcome.status !== "pass") {
        return { ...outcome, message: `validation failure: ${outcome.message}` };
      }
      applied++;
    }
  }
  if (applied === 0) return undefined;
  return { status: "pass", message: passMessage(scope.ruleName) };
}

type ListOutcome = { kind: "items"; items: readonly JsonValue[] } | { kind: "missing" } | { kind: "error"; message: string };

function evaluateList(list: string, vars: SubstitutionScope): ListOutcome {
  const expr = list.includes("{{") ? substituteString(list, vars) : { ok: true as const, value: list as JsonValue };
  if (!expr.ok) return { kind: "error", message: expr.error.message };
  let value: JsonValue;
  try {
    value = vars.cache.get(String(expr.value)).search(vars.data, vars.fnctx);
  } catch (e) {
    const msg = (e as Error).message;
    if (/Unknown key/.test(msg)) return { kind: "missing" };
    return { kind: "error", message: msg };
  }
  if (value === null) return { kind: "missing" };
  if (!Array.isArray(value)) return { kind: "error", message: `expected an array, got ${typeof value === "object" ? "object" : typeof value}` };
  return { kind: "items", items: value };
}
