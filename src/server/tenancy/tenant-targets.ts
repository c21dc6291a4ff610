/**
 * The tenant rules for what a namespaced Policy writes or copies (tenant-isolation.md rule 1),
 * checked on what is visible before substitution: a generate target (`generate.namespace`,
 * `generate.kind`, also in `generate.foreach`), a clone source (`generate.clone.namespace`,
 * `generate.cloneList.namespace` and `.kinds`) and a mutate-existing target (`mutate.targets[]`)
 * must not name another namespace or a cluster-scoped kind. A value with a variable is checked
 * again at run time, after substitution.
 */
import { isObject, type JsonObject, type JsonValue, problem, type PolicyProblem } from "../../engine/index.js";
import { builtInKind } from "../../kube/built-in-kinds.js";

export function targetProblems(document: JsonValue, namespace: string): PolicyProblem[] {
  if (
    namespace === "" ||
    !isObject(document) ||
    !isObject(document["spec"]) ||
    !Array.isArray(document["spec"]["rules"])
  )
    return [];
  const out: PolicyProblem[] = [];
  const tenant = `a namespaced Policy (namespace "${namespace}") reaches only its own namespace`;
  const checkNamespace = (value: JsonValue | undefined, path: string, what: string): void => {
    if (typeof value !== "string" || value === "" || value.includes("{{") || value === namespace) return;
    out.push(problem(path, `${tenant}: ${what} names namespace "${value}"`));
  };
  const checkKind = (value: JsonValue | undefined, path: string, what: string): void => {
    if (typeof value !== "string" || value.includes("{{")) return;
    const kind = value.split("/").pop() ?? value;
    if (builtInKind(kind)?.namespaced === false)
      out.push(problem(path, `${tenant}: ${what} is the cluster-scoped kind ${kind}`));
  };
  const generate = (g: JsonObject, path: string): void => {
    checkNamespace(g["namespace"], `${path}.namespace`, "the generated resource");
    checkKind(g["kind"], `${path}.kind`, "the generated resource");
    if (isObject(g["clone"])) checkNamespace(g["clone"]["namespace"], `${path}.clone.namespace`, "the clone source");
    const list = g["cloneList"];
    if (isObject(list)) {
      checkNamespace(list["namespace"], `${path}.cloneList.namespace`, "the clone source");
      if (Array.isArray(list["kinds"]))
        list["kinds"].forEach((k, i) => checkKind(k, `${path}.cloneList.kinds[${i}]`, "a clone source"));
    }
  };
  document["spec"]["rules"].forEach((rule, i) => {
    if (!isObject(rule)) return;
    const base = `spec.rules[${i}]`;
    const g = rule["generate"];
    if (isObject(g)) {
      generate(g, `${base}.generate`);
      if (Array.isArray(g["foreach"]))
        g["foreach"].forEach((f, j) => isObject(f) && generate(f, `${base}.generate.foreach[${j}]`));
    }
    const m = rule["mutate"];
    if (isObject(m) && Array.isArray(m["targets"])) {
      m["targets"].forEach((t, j) => {
        if (!isObject(t)) return;
        checkNamespace(t["namespace"], `${base}.mutate.targets[${j}].namespace`, "the mutate target");
        checkKind(t["kind"], `${base}.mutate.targets[${j}].kind`, "the mutate target");
      });
    }
  });
  return out;
}
