/**
 * The tenant rules checked when a policy set loads (tenant-isolation.md rules 1-3), on what can be
 * seen before any variable is substituted: a namespaced Policy whose apiCall path or configMap
 * entry names another namespace or a cluster-scoped path, calls a service, POSTs, or reads a
 * globalReference, and a namespaced policy of any kind whose CEL names `globalContext`
 * (tenant-cel-reads.ts), or whose match names a cluster-wide kind (tenant-match-kinds.ts), is invalid,
 * with the field named. What depends on variables is checked again at
 * run time (live-context.ts), after substitution.
 */
import { type JsonValue, problem, type PolicyProblem } from "../../engine/index.js";
import { checkApiCall, checkConfigMapNamespace, parseApiPath } from "../../kube/api-path.js";
import { celGlobalContextProblems } from "./tenant-cel-reads.js";
import { matchKindProblems } from "./tenant-match-kinds.js";
import { targetProblems } from "./tenant-targets.js";

const VARIABLE = /\{\{[^}]*\}\}/g;
const PLACEHOLDER = "bylaw-variable";

/** Problems of a policy document's context entries and targets (tenant-targets.ts); none for a ClusterPolicy (`namespace` ""). */
export function tenantProblems(document: JsonValue, namespace: string): PolicyProblem[] {
  if (namespace === "") return [];
  const out: PolicyProblem[] = [];
  const visit = (v: JsonValue | undefined, path: string, inContext: boolean): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => visit(x, `${path}[${i}]`, inContext));
      return;
    }
    if (v === null || typeof v !== "object") return;
    if (inContext) entryProblems(v, path, namespace, out);
    for (const [k, x] of Object.entries(v)) visit(x, path === "" ? k : `${path}.${k}`, inContext || k === "context");
  };
  visit(document, "", false);
  return [
    ...out,
    ...celGlobalContextProblems(document, namespace),
    ...targetProblems(document, namespace),
    ...matchKindProblems(document, namespace),
  ];
}

function entryProblems(
  entry: { readonly [k: string]: JsonValue },
  path: string,
  namespace: string,
  out: PolicyProblem[],
): void {
  const tenant = `a namespaced Policy (namespace "${namespace}") reaches only its own namespace`;
  if (entry["globalReference"] !== undefined)
    out.push(problem(`${path}.globalReference`, `${tenant}: globalReference is not allowed`));
  const cm = entry["configMap"];
  if (cm !== null && typeof cm === "object" && !Array.isArray(cm)) {
    const ns = typeof cm["namespace"] === "string" ? cm["namespace"] : "";
    if (!ns.includes("{{")) {
      const r = checkConfigMapNamespace(ns, namespace);
      if (!r.ok) out.push(problem(`${path}.configMap.namespace`, `${tenant}: ${r.error.message}`));
    }
  }
  const call = entry["apiCall"];
  if (call === null || typeof call !== "object" || Array.isArray(call)) return;
  const method = typeof call["method"] === "string" ? call["method"] : "GET";
  const service = call["service"];
  const serviceUrl =
    service !== null && typeof service === "object" && !Array.isArray(service) && typeof service["url"] === "string"
      ? service["url"]
      : undefined;
  const urlPath = typeof call["urlPath"] === "string" ? call["urlPath"] : undefined;
  if (serviceUrl !== undefined || method !== "GET") {
    const r = checkApiCall(
      { ...(serviceUrl !== undefined ? { serviceUrl } : {}), ...(urlPath !== undefined ? { urlPath } : {}), method },
      namespace,
    );
    if (!r.ok) out.push(problem(`${path}.apiCall`, `${tenant}: ${r.error.message}`));
    return;
  }
  if (urlPath === undefined) return;
  if (!urlPath.includes("{{")) {
    const r = checkApiCall({ urlPath, method }, namespace);
    if (!r.ok) out.push(problem(`${path}.apiCall.urlPath`, r.error.message));
    return;
  }
  // With variables: refuse what the literal parts already decide (another namespace named, or a
  // path that has no namespace segment at all); a namespace from a variable waits for run time.
  const parsed = parseApiPath(urlPath.replace(VARIABLE, PLACEHOLDER));
  if (!parsed.ok) return;
  const ns = parsed.value.resource?.namespace;
  if (ns === undefined && !parsed.value.segments.includes(PLACEHOLDER)) {
    out.push(problem(`${path}.apiCall.urlPath`, `${tenant}: ${JSON.stringify(urlPath)} is not a path in a namespace`));
  } else if (ns !== undefined && !ns.includes(PLACEHOLDER) && ns !== namespace) {
    out.push(problem(`${path}.apiCall.urlPath`, `${tenant}: ${JSON.stringify(urlPath)} reads namespace "${ns}"`));
  }
}
