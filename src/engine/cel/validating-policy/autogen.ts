/**
 * Kyverno's autogen for ValidatingPolicy (pkg/cel/autogen, pkg/cel/policies/vpol/autogen; the same
 * for ImageValidatingPolicy, pkg/cel/policies/ivpol/autogen): a policy whose matchConstraints select
 * exactly core v1 `pods` (one resource rule, no objectSelector, no exclusions, no resourceNames) also
 * applies to pod controllers. For each group of controllers (config `defaults`: Deployment,
 * DaemonSet, ReplicaSet, StatefulSet, Job, the pod at spec.template; config `cronjobs`: CronJob, at
 * spec.jobTemplate.spec.template) its spec is copied with new matchConstraints (the same operations
 * and namespaceSelector) and then with `object.spec`/`object.metadata` (and `oldObject.…`) rewritten
 * everywhere in it, except `….metadata.namespace`, which stays the controller's own.
 * `spec.autogen.podControllers.controllers` (resource names) narrows the controllers.
 * Done once at compile time; the copies are compiled like the original. `autogenConfigs` is the
 * same result with each config's name and targets, as Kyverno writes it in `status.autogen`.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";

/** A pod controller, as Kyverno's `Target`. */
interface AutogenTarget {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
}

export type AutogenConfigName = "cronjobs" | "defaults";

/** One config of the copies: its name, its controllers (sorted by group, version, resource, kind) and the copied spec. */
export interface AutogenConfig {
  readonly config: AutogenConfigName;
  readonly targets: readonly AutogenTarget[];
  readonly spec: JsonObject;
}

const target = (group: string, resource: string, kind: string): AutogenTarget => ({
  group,
  version: "v1",
  resource,
  kind,
});

const CONTROLLERS: Readonly<Record<string, { target: AutogenTarget; config: AutogenConfigName }>> = {
  daemonsets: { target: target("apps", "daemonsets", "DaemonSet"), config: "defaults" },
  deployments: { target: target("apps", "deployments", "Deployment"), config: "defaults" },
  replicasets: { target: target("apps", "replicasets", "ReplicaSet"), config: "defaults" },
  statefulsets: { target: target("apps", "statefulsets", "StatefulSet"), config: "defaults" },
  jobs: { target: target("batch", "jobs", "Job"), config: "defaults" },
  cronjobs: { target: target("batch", "cronjobs", "CronJob"), config: "cronjobs" },
};

/** Where a config's pod lives: `spec` and `metadata` of the pod, relative to the controller. */
export const POD_PATHS: Readonly<Record<AutogenConfigName, { readonly spec: string; readonly metadata: string }>> = {
  defaults: { spec: "spec.template.spec", metadata: "spec.template.metadata" },
  cronjobs: { spec: "spec.jobTemplate.spec.template.spec", metadata: "spec.jobTemplate.spec.template.metadata" },
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

function rewrite(spec: JsonObject, config: AutogenConfigName): JsonObject {
  let text = JSON.stringify(spec);
  for (const [from, to] of [
    ["spec", POD_PATHS[config].spec],
    ["metadata", POD_PATHS[config].metadata],
  ] as const) {
    text = replace(text, `object.${from}`, `object.${to}`);
    text = replace(text, `oldObject.${from}`, `oldObject.${to}`);
  }
  return JSON.parse(text) as JsonObject;
}

const byTarget = (a: AutogenTarget, b: AutogenTarget): number => {
  for (const k of ["group", "version", "resource", "kind"] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
};

/**
 * Kyverno's generateRuleForControllers, for any policies.kyverno.io kind: per config (in name
 * order), the spec with the controllers' matchConstraints (CreateMatchConstraints: one rule per
 * group and version, resources sorted; none when the pod rule names no operations), then rewritten
 * by `convert`. None when the policy cannot autogen.
 */
export function podControllerConfigs(
  spec: JsonObject,
  convert: (spec: JsonObject, config: AutogenConfigName) => JsonObject,
): AutogenConfig[] {
  if (!canAutogen(spec)) return [];
  const mc = spec["matchConstraints"] as JsonObject;
  const rule = (mc["resourceRules"] as JsonValue[])[0] as JsonObject;
  const operations = strings(rule["operations"]);
  const autogen = isObject(spec["autogen"]) ? spec["autogen"] : {};
  const pc = isObject(autogen["podControllers"]) ? autogen["podControllers"] : {};
  const wanted = Array.isArray(pc["controllers"]) ? strings(pc["controllers"]) : Object.keys(CONTROLLERS);
  const out: AutogenConfig[] = [];
  for (const config of ["cronjobs", "defaults"] as const) {
    const targets = [
      ...new Set(
        wanted.flatMap((c) =>
          Object.hasOwn(CONTROLLERS, c) && CONTROLLERS[c]?.config === config ? [CONTROLLERS[c].target] : [],
        ),
      ),
    ].sort(byTarget);
    if (targets.length === 0) continue;
    const groups = [...new Set(targets.map((t) => t.group))].sort();
    const resourceRules: JsonObject[] = groups.map((g) => ({
      apiGroups: [g],
      apiVersions: ["v1"],
      resources: [...new Set(targets.filter((t) => t.group === g).map((t) => t.resource))].sort(),
      operations,
    }));
    const copy: JsonObject = { ...spec };
    if (operations.length === 0) delete copy["matchConstraints"];
    else
      copy["matchConstraints"] =
        mc["namespaceSelector"] === undefined
          ? { resourceRules }
          : { resourceRules, namespaceSelector: mc["namespaceSelector"] };
    out.push({ config, targets, spec: convert(copy, config) });
  }
  return out;
}

/** The pod-controller configs of a ValidatingPolicy (or ImageValidatingPolicy) spec. */
export function autogenConfigs(spec: JsonObject): AutogenConfig[] {
  return podControllerConfigs(spec, rewrite);
}

/** The pod-controller copies of a ValidatingPolicy's spec, in Kyverno's order (by config name); none when it cannot autogen or names no operations. */
export function autogenSpecs(spec: JsonObject): JsonObject[] {
  return autogenConfigs(spec).flatMap((c) => (c.spec["matchConstraints"] === undefined ? [] : [c.spec]));
}
