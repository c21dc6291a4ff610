/** Evaluates a compiled podSecurity rule on a resource, as Kyverno's `validatePssHandler` does. */
import type { JsonObject } from "../api/json.js";
import { parseImageReference } from "../context/image-info.js";
import type { CheckRun } from "./check-types.js";
import { controlNameOf } from "./controls.js";
import { type CheckMemo, runChecks } from "./evaluate.js";
import { applyExclusions } from "./exclude.js";
import { ContainerImages, podOf, reportedField } from "./pod-spec.js";
import type { CompiledPodSecurity, PodSecurityExclude, PodSecurityOutcome, PssCheck } from "./types.js";

export const UNSUPPORTED_KIND_ERROR = "Error while getting new resource: could not find correct resource type";

/**
 * Kyverno's `addImages`: the containers named in the detail (first `container(s) … must`), as image
 * references. Names are looked up in one index of the pod's containers (built on first use and
 * shared by every failing check), so a check naming every container of a large pod stays linear.
 */
function imagesOf(detail: string, images: ContainerImages): string[] | undefined {
  const m = /containers?\s*(.*?)\s*must/.exec(detail);
  if (m === null) return undefined;
  const names = (m[1] ?? "").replaceAll('"', "").replaceAll(" ", "").split(",");
  return names.map((name) => {
    const image = images.imageOf(name);
    const info = image === undefined ? undefined : parseImageReference(image);
    return info?.reference ?? name;
  });
}

function toCheck(run: CheckRun, kind: string, index: ContainerImages): PssCheck {
  const images = imagesOf(run.detail, index);
  return {
    id: run.id,
    control: controlNameOf(run.id),
    reason: run.reason,
    detail: run.detail,
    errors: run.errors.map((e) => ({ ...e, field: reportedField(e.field, kind) })),
    ...(images !== undefined ? { images } : {}),
  };
}

interface PodSecurityOptions {
  /** The `podSecurity` entries of the matched PolicyExceptions, applied after the rule's own. */
  readonly extraExcludes?: readonly PodSecurityExclude[];
  /** What the checks gave on this same resource so far (one request's; `runChecks`). */
  readonly checks?: CheckMemo;
}

/**
 * Checks the pod of `resource` (a Pod, a pod controller's `spec.template`, or a CronJob's
 * `spec.jobTemplate.spec.template`) against the rule's level and version, then applies the rule's
 * `exclude` entries. When checks still fail, `extraExcludes` (the `podSecurity` entries of the
 * matched PolicyExceptions) are applied too; if that leaves nothing, `exemptedByExtra` is set.
 */
export function evaluatePodSecurity(
  ps: CompiledPodSecurity,
  resource: JsonObject,
  o: PodSecurityOptions = {},
): PodSecurityOutcome {
  const extraExcludes = o.extraExcludes ?? [];
  const pod = podOf(resource);
  if (pod === undefined) return { allowed: false, checks: [], exemptedByExtra: false, error: UNSUPPORTED_KIND_ERROR };
  let runs = runChecks(ps.checks, pod, o.checks);
  // A pod that fails no check has nothing to exclude.
  if (ps.exclude.length > 0 && runs.length > 0) runs = applyExclusions(ps.checks, ps.exclude, runs, pod);
  if (runs.length === 0) return { allowed: true, checks: [], exemptedByExtra: false };
  if (extraExcludes.length > 0) {
    runs = applyExclusions(ps.checks, extraExcludes, runs, pod);
    if (runs.length === 0) return { allowed: true, checks: [], exemptedByExtra: true };
  }
  const kind = typeof resource["kind"] === "string" ? resource["kind"] : "";
  const images = new ContainerImages(pod);
  return { allowed: false, checks: runs.map((r) => toCheck(r, kind, images)), exemptedByExtra: false };
}
