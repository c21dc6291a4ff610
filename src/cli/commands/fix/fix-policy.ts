/**
 * `bylaw fix policy`: rewrite a ClusterPolicy/Policy's deprecated fields in place (comments and
 * layout kept, through the yaml Document), as `kyverno fix policy` does, plus the fields Kyverno
 * 1.13+ moved from the spec into each rule:
 *
 * - `spec.validationFailureAction` audit/enforce → Audit/Enforce, then onto each validate rule as
 *   `validate.failureAction` (and `validationFailureActionOverrides` → `validate.failureActionOverrides`);
 * - `spec.generateExistingOnPolicyUpdate` / `spec.generateExisting` → each generate rule's `generate.generateExisting`;
 * - `spec.mutateExistingOnPolicyUpdate` → each mutate rule's `mutate.mutateExistingOnPolicyUpdate`;
 * - `match` / `exclude` written without `any`/`all` → one `any` entry;
 * - preconditions written as a list → `all`; operators Equal, NotEqual, In, NotIn → Equals, NotEquals, AllIn, AnyNotIn.
 *
 * Returns what it changed, one message each; an empty list leaves the document as it was.
 */
import { type Document, isMap, isSeq, type YAMLMap } from "yaml";
import { classify } from "../../../engine/index.js";

const OLD_OPERATORS: Record<string, string> = {
  Equal: "Equals",
  NotEqual: "NotEquals",
  In: "AllIn",
  NotIn: "AnyNotIn",
};
const OLD_FILTER_KEYS = ["resources", "subjects", "roles", "clusterRoles"];

export function fixPolicy(doc: Document): string[] {
  const kind = classify({ apiVersion: textOrEmpty(doc.get("apiVersion")), kind: textOrEmpty(doc.get("kind")) });
  if (kind.role !== "policy" || kind.kind.language !== "kyverno") return [];
  const out: string[] = [];
  const rules = doc.getIn(["spec", "rules"]);
  const ruleMaps = isSeq(rules) ? rules.items.filter(isMap) : [];
  const action = doc.getIn(["spec", "validationFailureAction"]);
  if (typeof action === "string") {
    const canonical = action.toLowerCase() === "enforce" ? "Enforce" : "Audit";
    out.push(
      `spec.validationFailureAction is deprecated: moved to each validate rule's validate.failureAction (${canonical})`,
    );
    for (const r of ruleMaps)
      if (r.has("validate") && !r.hasIn(["validate", "failureAction"]))
        r.setIn(["validate", "failureAction"], canonical);
    doc.deleteIn(["spec", "validationFailureAction"]);
  }
  const overrides = doc.getIn(["spec", "validationFailureActionOverrides"], true);
  if (overrides !== undefined) {
    out.push(
      "spec.validationFailureActionOverrides is deprecated: moved to each validate rule's validate.failureActionOverrides",
    );
    for (const r of ruleMaps)
      if (r.has("validate") && !r.hasIn(["validate", "failureActionOverrides"]))
        r.setIn(
          ["validate", "failureActionOverrides"],
          doc.createNode(doc.getIn(["spec", "validationFailureActionOverrides"])),
        );
    doc.deleteIn(["spec", "validationFailureActionOverrides"]);
  }
  for (const field of ["generateExistingOnPolicyUpdate", "generateExisting"]) {
    const value = doc.getIn(["spec", field]);
    if (value === undefined) continue;
    out.push(`spec.${field} is deprecated: moved to each generate rule's generate.generateExisting`);
    for (const r of ruleMaps)
      if (r.has("generate") && !r.hasIn(["generate", "generateExisting"]))
        r.setIn(["generate", "generateExisting"], value);
    doc.deleteIn(["spec", field]);
  }
  const mutateExisting = doc.getIn(["spec", "mutateExistingOnPolicyUpdate"]);
  if (mutateExisting !== undefined) {
    out.push(
      "spec.mutateExistingOnPolicyUpdate is deprecated: moved to each mutate rule's mutate.mutateExistingOnPolicyUpdate",
    );
    for (const r of ruleMaps)
      if (r.has("mutate") && !r.hasIn(["mutate", "mutateExistingOnPolicyUpdate"]))
        r.setIn(["mutate", "mutateExistingOnPolicyUpdate"], mutateExisting);
    doc.deleteIn(["spec", "mutateExistingOnPolicyUpdate"]);
  }
  ruleMaps.forEach((rule, i) => {
    for (const block of ["match", "exclude"]) {
      const m = rule.get(block);
      if (!isMap(m)) continue;
      const old = OLD_FILTER_KEYS.filter((k) => m.has(k));
      if (old.length === 0) continue;
      out.push(
        `spec.rules[${i}].${block} uses the old syntax (${old.join(", ")} directly under ${block}): moved into ${block}.any`,
      );
      const filter = doc.createNode({}) as YAMLMap;
      for (const k of old) {
        filter.set(k, m.get(k, true));
        m.delete(k);
      }
      const any = m.get("any");
      if (isSeq(any)) any.add(filter);
      else m.set("any", doc.createNode([filter]));
    }
    const pre = rule.get("preconditions");
    if (isSeq(pre)) {
      out.push(`spec.rules[${i}].preconditions is a list (old syntax): moved under preconditions.all`);
      rule.set("preconditions", doc.createNode({ all: pre }));
    }
    const conditions = rule.get("preconditions");
    if (isMap(conditions)) {
      for (const group of ["any", "all"]) {
        const list = conditions.get(group);
        if (!isSeq(list)) continue;
        for (const c of list.items) {
          if (!isMap(c)) continue;
          const op = c.get("operator");
          const renamed = typeof op === "string" ? OLD_OPERATORS[op] : undefined;
          if (typeof op === "string" && renamed !== undefined) {
            out.push(`spec.rules[${i}].preconditions.${group}: operator ${op} is deprecated: now ${renamed}`);
            c.set("operator", renamed);
          }
        }
      }
    }
  });
  return out;
}

function textOrEmpty(v: unknown): string {
  return typeof v === "string" ? v : "";
}
