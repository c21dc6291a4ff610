/**
 * Kyverno's autogen for ValidatingPolicy (pkg/cel/autogen, pkg/cel/policies/vpol/autogen): a policy
 * whose matchConstraints select exactly core v1 `pods` (one resource rule, no objectSelector, no
 * exclusions, no resourceNames) also applies to pod controllers. For each group of controllers
 * (Deployment, DaemonSet, ReplicaSet, StatefulSet, Job: the pod is at spec.template; CronJob: at
 * spec.jobTemplate.spec.template) it is copied with new matchConstraints (the same operations and
 * namespaceSelector) and with `object.spec`/`object.metadata` (and `oldObject.…`) rewritten
 * everywhere in its spec, except `….metadata.namespace`, which stays the controller's own.
 * `spec.autogen.podControllers.controllers` (resource names) narrows the controllers.
 * Done once at compile time; the copies are compiled like the original.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";

interface Target {
  readonly group: string;
  readonly resource: string;
}

const CONTROLLERS: Readonly<Record<string, { target: Target; config: "defaults" | "cronjobs" }>> = {
  daemonsets: { target: { group: "apps", resource: "daemonsets" }, config: "defaults" },
  deployments: { target: { group: "apps", resource: "deployments" }, config: "defaults" },
  replicasets: { target: { group: "apps", resource: "replicasets" }, config: "defaults" },
  statefulsets: { target: { group: "apps", resource: "statefulsets" }, config: "defaults" },
  jobs: { target: { group: "batch", resource: "jobs" }, config: "defaults" },
  cronjobs: { target: { group: "batch", resource: "cronjobs" }, config: "cronjobs" },
};

const REPLACEMENTS: Readonly<Record<"defaults" | "cronjobs", readonly (readonly [string, string])[]>> = {
  defaults: [["spec", "spec.template.spec"], ["metadata", "spec.template.metadata"]],
  cronjobs: [["spec", "spec.jobTemplate.spec.template.spec"], ["metadata", "spec.jobTemplate.spec.template.metadata"]],
};

function strings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function nonEmptySelector(v: JsonValue | undefined): boolean {
  if (!isObject(v)) return false;
  const labels = v["matchLabels"];
  const exprs = v["matchExpressions"];
  return (isObject(labels) && Object.keys(labels).length > 0) || (Array.isArray(exprs) && exprs.length > 0);
}

/** Kyverno's CanAutoGen. */
export function canAutogen(spec: JsonObject): boolean {
  const mc = spec["matchConstraints"];
  if (!isObject(mc)) return false;
  if (nonEmptySelector(mc["objectSelector"])) return false;
  if (Array.isArray(mc["excludeResourceRules"]) && mc["excludeResourceRules"].length > 0) return false;
  const rules = Array.isArray(mc["resourceRules"]) ? mc["resourceRules"] : [];
  const rule = rules[0];
  if (rules.length !== 1 || !isObject(rule)) return false;
  if (strings(rule["resourceNames"]).length > 0) return false;
  const one = (k: string, v: string): boolean => {
    const xs = strings(rule[k]);
    return xs.length === 1 && xs[0] === v;
  };
  return one("apiGroups", "") && one("apiVersions", "v1") && one("resources", "pods");
}

/** `object.<from>` → `object.<to>` (and oldObject), except where `.namespace` follows as a whole segment. */
function replace(text: string, from: string, to: string): string {
  let out = "";
  let rest = text;
  for (let i = rest.indexOf(from); i >= 0; i = rest.indexOf(from)) {
    const after = rest.slice(i + from.length);
    const protectedNs = after.startsWith(".namespace") && !/^[A-Za-z0-9_]/.test(after.slice(".namespace".length));
    out += rest.slice(0, i) + (protectedNs ? from : to);
    rest = after;
  }
  return out + rest;
}

function rewrite(spec: JsonObject, config: "defaults" | "cronjobs"): JsonObject {
  let text = JSON.stringify(spec);
  for (const [from, to] of REPLACEMENTS[config]) {
    text = replace(text, `object.${from}`, `object.${to}`);
    text = replace(text, `oldObject.${from}`, `oldObject.${to}`);
  }
  return JSON.parse(text) as JsonObject;
}

/** The pod-controller copies of a ValidatingPolicy's spec, in Kyverno's order (by config name); none when it cannot autogen. */
export function autogenSpecs(spec: JsonObject): JsonObject[] {
  if (!canAutogen(spec)) return [];
  const mc = spec["matchConstraints"] as JsonObject;
  const rule = (mc["resourceRules"] as JsonValue[])[0] as JsonObject;
  const operations = strings(rule["operations"]);
  if (operations.length === 0) return [];
  const autogen = isObject(spec["autogen"]) ? spec["autogen"] : {};
  const pc = isObject(autogen["podControllers"]) ? autogen["podControllers"] : {};
  const wanted = Array.isArray(pc["controllers"]) ? strings(pc["controllers"]) : Object.keys(CONTROLLERS);
  const out: JsonObject[] = [];
  for (const config of ["cronjobs", "defaults"] as const) {
    const targets = wanted.flatMap((c) => (CONTROLLERS[c]?.config === config ? [CONTROLLERS[c].target] : []));
    if (targets.length === 0) continue;
    const groups = [...new Set(targets.map((t) => t.group))].sort();
    const resourceRules: JsonObject[] = groups.map((g) => ({
      apiGroups: [g],
      apiVersions: ["v1"],
      resources: [...new Set(targets.filter((t) => t.group === g).map((t) => t.resource))].sort(),
      operations,
    }));
    const copy = rewrite(spec, config);
    copy["matchConstraints"] = mc["namespaceSelector"] === undefined ? { resourceRules } : { resourceRules, namespaceSelector: mc["namespaceSelector"] };
    out.push(copy);
  }
  return out;
}
