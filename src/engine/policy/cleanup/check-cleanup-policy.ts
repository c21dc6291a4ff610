/**
 * Kyverno's own checks of a kyverno.io CleanupPolicy / ClusterCleanupPolicy beyond its CRD schema
 * (`CleanupPolicySpec.Validate` in `api/kyverno/v2`), with Kyverno's texts: the schedule must be a
 * standard cron spec, match and exclude may not name users (`roles`, `clusterRoles`, `subjects`:
 * a cleanup runs on a timer, with no request and so no user), and the context may not hold a
 * `configMap` or `imageRegistry` entry; a namespaced CleanupPolicy may not filter on `namespaces`
 * (namespaced-block.ts). Each problem is `<path>: <Kubernetes field error>` as the
 * API server prints it (`Invalid value: …`, `Forbidden: …`).
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { problem, type PolicyProblem } from "../../api/problem.js";
import { isCronSchedule } from "./cron-schedule.js";
import { namespaceFilterProblems } from "../../match/namespaced-block.js";

const CLEANUP_KINDS = new Set(["CleanupPolicy", "ClusterCleanupPolicy"]);
const USER_INFO = ["roles", "clusterRoles", "subjects"] as const;
const FORBIDDEN_CONTEXT: readonly (readonly [string, string])[] = [
  ["imageRegistry", "ImageRegistry is not allowed in CleanUp Policy"],
  ["configMap", "ConfigMap is not allowed in CleanUp Policy"],
];

/** Whether a document is a kyverno.io cleanup policy kind. */
export function isCleanupPolicyDocument(doc: JsonValue): boolean {
  return isObject(doc) && typeof doc["kind"] === "string" && CLEANUP_KINDS.has(doc["kind"]);
}

/** Kyverno's problems with a cleanup policy's spec (its CRD schema is checked first, elsewhere). */
export function cleanupPolicyProblems(doc: JsonObject): PolicyProblem[] {
  const spec = isObject(doc["spec"]) ? doc["spec"] : {};
  const out: PolicyProblem[] = [...contextProblems(spec["context"])];
  const schedule = spec["schedule"];
  if (typeof schedule === "string" && !isCronSchedule(schedule))
    out.push(
      problem(
        "spec.schedule",
        `Invalid value: ${JSON.stringify(schedule)}: schedule spec in the cleanupPolicy is not in proper cron format`,
      ),
    );
  for (const block of ["match", "exclude"] as const) {
    out.push(...userInfoProblems(spec[block], `spec.${block}`));
    const b = spec[block];
    if (doc["kind"] === "CleanupPolicy" && isObject(b)) out.push(...namespaceFilterProblems(b, `spec.${block}`));
  }
  return out;
}

function contextProblems(context: JsonValue | undefined): PolicyProblem[] {
  if (!Array.isArray(context)) return [];
  const out: PolicyProblem[] = [];
  for (const entry of context) {
    if (!isObject(entry)) continue;
    const found = FORBIDDEN_CONTEXT.find(([field]) => entry[field] !== undefined && entry[field] !== null);
    if (found !== undefined)
      out.push(problem("spec.context", `Invalid value: ${JSON.stringify(context)}: ${found[1]}`));
  }
  return out;
}

/** `roles`, `clusterRoles` or `subjects` in a match/exclude block's any/all filters (or the block itself). */
function userInfoProblems(block: JsonValue | undefined, path: string): PolicyProblem[] {
  if (!isObject(block)) return [];
  const out: PolicyProblem[] = [...filterUserInfo(block, path)];
  for (const list of ["any", "all"] as const) {
    const filters = block[list];
    if (Array.isArray(filters))
      filters.forEach((f, i) => {
        if (isObject(f)) out.push(...filterUserInfo(f, `${path}.${list}[${i}]`));
      });
  }
  return out;
}

function filterUserInfo(filter: JsonObject, path: string): PolicyProblem[] {
  return USER_INFO.filter((k) => {
    const v = filter[k];
    return Array.isArray(v) && v.length > 0;
  }).map((k) => problem(`${path}.${k}`, "Forbidden: Usage of user info is forbidden"));
}
