/**
 * Load-time checks of mutate and generate rules (spec §2.4, §2.5, §2.8, §5.5): the shape of the
 * block, no variables in the rule's own JSON-patch paths (foreach paths use `{{elementIndex}}`),
 * `element` only inside foreach, and a namespaced Policy
 * that stays in its own namespace.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { PolicyDocument, Rule } from "../api/policy.js";
import { checkGenerate } from "../generate/index.js";
import { parseJsonPatch } from "../mutate/json-patch/index.js";
import { problem, warning, type PolicyProblem } from "../api/problem.js";
import { ELEMENT_VARIABLE, elementOutsideForeach } from "./element-outside-foreach.js";
import { targetVariableProblems } from "./target-variables.js";

const PATCH_KINDS = ["patchStrategicMerge", "patchesJson6902", "foreach"] as const;

export function checkMutate(policy: PolicyDocument, rule: Rule, path: string): PolicyProblem[] {
  const mutate = rule.mutate;
  if (mutate === undefined) return [];
  if (!isObject(mutate)) return [problem(`${path}.mutate`, "mutate must be a mapping")];
  const out = checkPatchBlock(mutate, `${path}.mutate`, 0);
  if (mutate["foreach"] === undefined) {
    const { targets: _t, ...rest } = mutate;
    void _t;
    if (ELEMENT_VARIABLE.test(JSON.stringify(rest)))
      out.push(problem(`${path}.mutate`, elementOutsideForeach(rest, "/mutate")));
  }
  if (mutate["patchesJson6902"] !== undefined && JSON.stringify(rule.match ?? {}).includes('"Pod"')) {
    out.push(
      warning(
        `${path}.mutate.patchesJson6902`,
        // Kyverno's policy webhook warning (pkg/validation/policy jsonPatchOnPod).
        "Pods managed by workload controllers should not be directly mutated using policies. Use the autogen feature or write policies that match Pod controllers.",
      ),
    );
  }
  out.push(...targetVariableProblems(rule, policy.spec.background !== false, path));
  const targets = mutate["targets"];
  if (targets !== undefined && !Array.isArray(targets))
    out.push(
      problem(`${path}.mutate.targets`, "targets must be a list of {apiVersion, kind, name, namespace, selector}"),
    );
  if (Array.isArray(targets)) {
    targets.forEach((t, i) => {
      const at = `${path}.mutate.targets[${i}]`;
      if (!isObject(t) || typeof t["kind"] !== "string" || t["kind"] === "")
        out.push(problem(at, "a target needs a kind"));
      else if (policy.kind === "Policy")
        out.push(...ownNamespace(t["namespace"], policy.metadata.namespace ?? "", `${at}.namespace`, "mutate targets"));
    });
  }
  return out;
}

function checkPatchBlock(block: JsonObject, path: string, depth: number): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const kinds = PATCH_KINDS.filter((k) => block[k] !== undefined && block[k] !== null);
  if (kinds.length !== 1) {
    out.push(
      problem(
        path,
        `a mutate ${depth === 0 ? "rule" : "foreach entry"} needs exactly one of ${PATCH_KINDS.join(", ")}; found ${kinds.length === 0 ? "none" : kinds.join(", ")}`,
      ),
    );
  }
  const json = block["patchesJson6902"];
  if (typeof json === "string") {
    const ops = parseJsonPatch(json);
    if (!ops.ok && !json.includes("{{")) out.push(problem(`${path}.patchesJson6902`, ops.error.message));
    // Inside foreach, paths carry {{elementIndex}} by design; only the rule's own patch is checked.
    if (ops.ok && depth === 0) {
      ops.value.forEach((op, i) => {
        if (op.path.includes("{{") || (op.from ?? "").includes("{{")) {
          out.push(
            problem(
              `${path}.patchesJson6902`,
              `operation ${i}: should not have variables in patchesJSON6902 path section (${op.op} ${op.path})`,
            ),
          );
        }
      });
    }
  } else if (json !== undefined && json !== null) {
    out.push(
      problem(`${path}.patchesJson6902`, "patchesJson6902 must be a string holding a YAML or JSON list of operations"),
    );
  }
  const foreach = block["foreach"];
  if (foreach !== undefined && foreach !== null) {
    if (!Array.isArray(foreach)) out.push(problem(`${path}.foreach`, "foreach must be a list"));
    else {
      foreach.forEach((fe: JsonValue, i) => {
        const at = `${path}.foreach[${i}]`;
        if (!isObject(fe)) {
          out.push(problem(at, "each foreach entry must be a mapping with list and a patch"));
          return;
        }
        if (typeof fe["list"] !== "string" || fe["list"] === "")
          out.push(problem(`${at}.list`, "list is required: a JMESPath expression giving the elements"));
        const order = fe["order"];
        if (order !== undefined && order !== "Ascending" && order !== "Descending")
          out.push(problem(`${at}.order`, `order must be Ascending or Descending, got ${JSON.stringify(order)}`));
        out.push(...checkPatchBlock(fe, at, depth + 1));
      });
    }
  }
  return out;
}

export function checkGenerateRule(policy: PolicyDocument, rule: Rule, path: string): PolicyProblem[] {
  const generate = rule.generate;
  if (generate === undefined) return [];
  if (!isObject(generate)) return [problem(`${path}.generate`, "generate must be a mapping")];
  const out: PolicyProblem[] = checkGenerate(generate, `${path}.generate`).map((m) => {
    const i = m.indexOf(": ");
    return i < 0 ? problem(`${path}.generate`, m) : problem(m.slice(0, i), m.slice(i + 2));
  });
  if (policy.kind === "Policy")
    out.push(...namespacedGenerateProblems(generate, policy.metadata.namespace ?? "", path));
  if (generate["foreach"] === undefined && ELEMENT_VARIABLE.test(JSON.stringify(generate)))
    out.push(problem(`${path}.generate`, elementOutsideForeach(generate, "/generate")));
  return out;
}

function ownNamespace(value: JsonValue | undefined, own: string, path: string, what: string): PolicyProblem[] {
  if (typeof value !== "string" || value === "" || value.includes("{{") || value === own) return [];
  return [
    problem(path, `a namespaced Policy can only use ${what} in its own namespace: expected ${own}, got ${value}`),
  ];
}

/**
 * A namespaced Policy generates into, and clones from, its own namespace only, written as such: a
 * variable or a missing namespace is refused too (Kyverno `Generation.Validate`,
 * `validateNamespacedTargetsScope`, `ValidateCloneList`, with its texts). Whether the target kind is
 * namespaced at all needs discovery: the policy webhook checks it (server/registration/cluster-policy-checks.ts).
 */
function namespacedGenerateProblems(generate: JsonObject, own: string, path: string): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const text = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
  const scope = (what: string): PolicyProblem =>
    problem(`${path}.generate.namespace`, `Forbidden: target resource scope mismatched: ${what}`);
  const clone = isObject(generate["clone"]) ? generate["clone"] : {};
  if (generate["foreach"] === undefined && text(generate["namespace"]) !== own)
    out.push(
      scope(
        `a namespaced policy cannot generate resources in other namespaces, expected: ${own}, received: ${text(generate["namespace"])}`,
      ),
    );
  else if (text(clone["name"]) !== "" && text(clone["namespace"]) !== own)
    out.push(
      scope(
        `a namespaced policy cannot clone resources from other namespaces, expected: ${own}, received: ${text(clone["namespace"])}`,
      ),
    );
  const cloneList = isObject(generate["cloneList"]) ? generate["cloneList"] : {};
  const kinds = Array.isArray(cloneList["kinds"]) ? cloneList["kinds"] : [];
  if (kinds.length > 0 && text(cloneList["namespace"]) !== own)
    out.push(
      problem(
        `${path}.generate.cloneList.namespace`,
        `Forbidden: a namespaced policy cannot clone resources from other namespace, expected: ${own}, received: ${text(cloneList["namespace"])}`,
      ),
    );
  return out;
}
