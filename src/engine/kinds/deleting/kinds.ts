/** policies.kyverno.io DeletingPolicy and NamespacedDeletingPolicy: CEL conditions run on a schedule by the cleanup controller. */
import { apartStage, CEL_POLICY_GROUP, descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor } from "../types.js";

/**
 * Why the webhook does not serve one where the cleanup controller does not run (`serve --policies DIR`,
 * or a cluster without it): it decides no request; the cleanup controller runs it on its schedule.
 */
const NOT_SERVED =
  "the cleanup controller runs DeletingPolicies on their schedule and it does not run here (serve --cluster --cleanup-controller, or the cleanup component)";

export const DELETING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "DeletingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "cluster",
  language: "deleting",
  admission: "none",
  notServed: NOT_SERVED,
  status: "cel",
  shortName: "dpol",
  phases: ["delete"],
  cliStages: apartStage(1),
});

export const NAMESPACED_DELETING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "NamespacedDeletingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "namespaced",
  language: "deleting",
  admission: "none",
  notServed: NOT_SERVED,
  status: "cel",
  shortName: "ndpol",
  phases: ["delete"],
  cliStages: apartStage(1),
});
