/**
 * Tenant-isolation rule 3 for CEL (tenant-isolation.md): a namespaced document — a kyverno.io Policy,
 * a Namespaced*Policy of policies.kyverno.io, a PolicyException in a namespace — may not read the
 * GlobalContextEntries, which are cluster-wide and made by an admin. Every CEL expression of the
 * document (each string under a key ending in `expression`/`Expression`: validations, variables,
 * matchConditions, messageExpression, auditAnnotations' valueExpression, mutations, generators…)
 * that names the `globalContext` identifier is refused, with its field, as `globalReference` is for
 * the legacy context. CEL has no way to reach a library without naming it (no reflection, no block
 * comments, no escapes in identifiers), so naming is reaching; a string literal that happens to hold
 * the word is refused too, which is the safe side. The live context refuses the read again at run
 * time (live-context.ts), whoever asks.
 */
import { type JsonValue, problem, type PolicyProblem } from "../../engine/index.js";

const GLOBAL_CONTEXT = /(?<![\w$])globalContext(?![\w$])/;
const EXPRESSION_KEY = /(^e|E)xpression$/;

/** Problems of a namespaced document's CEL expressions that name `globalContext`; none for a cluster-wide one (`namespace` ""). */
export function celGlobalContextProblems(document: JsonValue, namespace: string): PolicyProblem[] {
  if (namespace === "") return [];
  const out: PolicyProblem[] = [];
  const visit = (v: JsonValue | undefined, path: string, key: string): void => {
    if (typeof v === "string") {
      if (EXPRESSION_KEY.test(key) && GLOBAL_CONTEXT.test(v))
        out.push(
          problem(
            path,
            `a namespaced policy (namespace "${namespace}") reaches only its own namespace: globalContext is not allowed (GlobalContextEntries are cluster-wide)`,
          ),
        );
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((x, i) => visit(x, `${path}[${i}]`, key));
      return;
    }
    if (v === null || typeof v !== "object") return;
    for (const [k, x] of Object.entries(v)) visit(x, path === "" ? k : `${path}.${k}`, k);
  };
  visit(document, "", "");
  return out;
}
