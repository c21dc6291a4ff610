/**
 * What the background controller may do to a kind's objects, asked of the API server as Kyverno's
 * policy webhook asks it for generate and mutate-existing rules (SubjectAccessReviews as the
 * controller's ServiceAccount, one per verb): the kind is resolved through discovery to its
 * resource (the plural, not a subresource), then each verb is asked in the namespace, and of one
 * object when a name is given.
 */
import type { KindSelector } from "../../kube/discovered-kinds.js";
import type { ResourceAccess } from "../../kube/access-review.js";
import type { KindResolver } from "./kind-problems.js";

export interface PermissionChecks {
  readonly resolve: KindResolver;
  readonly canI: (access: ResourceAccess) => Promise<boolean>;
  /** `system:serviceaccount:<namespace>:<name>` of the background controller. */
  readonly user: string;
}

interface Ask {
  /** The kind to resolve through discovery. */
  readonly kind: KindSelector;
  readonly verbs: readonly string[];
  readonly subresource: string;
  readonly namespace: string;
  readonly name?: string;
}

/** The verbs refused, in `verbs` order; "unknown" while discovery does not know the kind, "no-resource" when it serves none. */
export async function refusedVerbs(ask: Ask, checks: PermissionChecks): Promise<string[] | "unknown" | "no-resource"> {
  const found = checks.resolve(ask.kind);
  if (found === undefined) return "unknown";
  const resource = found.find((r) => !r.resource.includes("/")) ?? found[0];
  if (resource === undefined) return "no-resource";
  const plural = resource.resource.split("/")[0] ?? resource.resource;
  const allowed = await Promise.all(
    ask.verbs.map((verb) =>
      checks.canI({
        user: checks.user,
        verb,
        group: resource.group,
        resource: plural,
        subresource: ask.subresource,
        namespace: ask.namespace,
        ...(ask.name !== undefined ? { name: ask.name } : {}),
      }),
    ),
  );
  return ask.verbs.filter((_, i) => allowed[i] !== true);
}
