/**
 * Which pod controllers autogen targets: the `pod-policies.kyverno.io/autogen-controllers`
 * annotation (absent = all, `none` = off, otherwise a comma list taken verbatim).
 */
import type { PolicyDocument } from "../api/policy.js";
import { canAutogen } from "./can-autogen.js";

const AUTOGEN_ANNOTATION = "pod-policies.kyverno.io/autogen-controllers";

/** The controllers Kyverno knows, CronJob last (it gets its own rule). */
const POD_CONTROLLERS: readonly string[] = [
  "DaemonSet",
  "Deployment",
  "Job",
  "StatefulSet",
  "ReplicaSet",
  "ReplicationController",
  "CronJob",
];

/** Controllers that share the `autogen-<rule>` rule (all but CronJob). */
const TEMPLATE_CONTROLLERS: readonly string[] = POD_CONTROLLERS.filter((c) => c !== "CronJob");

/** Split a comma list and sort it byte-wise, as Kyverno does; entries are not trimmed. */
function splitKinds(controllers: string): string[] {
  return controllers.split(",").sort(byteOrder);
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The controller list Kyverno passes to rule generation: every known controller when the
 * annotation is absent, the annotation's distinct entries otherwise, or "none" when the policy
 * cannot be auto-generated.
 */
export function requestedControllers(policy: PolicyDocument): string {
  if (!canAutogen(policy)) return "none";
  const annotation = policy.metadata.annotations?.[AUTOGEN_ANNOTATION];
  if (annotation === undefined) return POD_CONTROLLERS.join(",");
  return [...new Set(annotation.split(","))].join(",");
}

/** Drop CronJob from a controller list (sorted); "" when nothing is left. */
export function stripCronJob(controllers: string): string {
  return splitKinds(controllers)
    .filter((c) => c !== "CronJob")
    .join(",");
}

/**
 * The kinds of the `autogen-<rule>` rule for a controller list: `all` means every template
 * controller; otherwise the known controllers listed, or (when none is known) the list as written.
 */
export function templateControllerKinds(controllers: string): string[] {
  if (controllers === "all") return [...TEMPLATE_CONTROLLERS].sort(byteOrder);
  const listed = splitKinds(controllers);
  const known = controllers === "none" ? [] : listed.filter((c) => TEMPLATE_CONTROLLERS.includes(c));
  return known.length > 0 ? known : listed;
}

/** Whether the list asks for a CronJob rule (Kyverno tests for the substrings `CronJob` or `all`). */
export function wantsCronJob(controllers: string): boolean {
  return controllers.includes("CronJob") || controllers.includes("all");
}

/**
 * The controller kinds a policy's generated rules target, in Kyverno's order (the sorted
 * template controllers, then CronJob), or [] when autogen does not apply.
 */
export function autogenControllers(policy: PolicyDocument): string[] {
  const controllers = requestedControllers(policy);
  if (controllers === "none") return [];
  const template = stripCronJob(controllers);
  const kinds = template === "" ? [] : templateControllerKinds(template);
  return wantsCronJob(controllers) ? [...kinds, "CronJob"] : kinds;
}
