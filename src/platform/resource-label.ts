/** A resource as `bylaw apply`'s results name it: `Kind/namespace/name` (`Kind/name` when cluster-scoped). */
import { type Resource, resourceKind, resourceName, resourceNamespace } from "../engine/index.js";

export function resourceLabel(r: Resource): string {
  const ns = resourceNamespace(r);
  return `${resourceKind(r)}/${ns ? `${ns}/` : ""}${resourceName(r)}`;
}
