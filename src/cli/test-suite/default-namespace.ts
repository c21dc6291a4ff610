/**
 * A test's resource without `metadata.namespace` is in `default`, as Kyverno's CLI loads every
 * resource file (cmd/cli/kubectl-kyverno/resource: an empty namespace is set to "default", whatever
 * the kind) and as the API server places a namespaced object created without one. Policies then see
 * `object.metadata.namespace`, `request.namespace` and a `namespaceObject` for it.
 */
import { isObject, type JsonObject } from "../../engine/index.js";

export function inDefaultNamespace(resource: JsonObject): JsonObject {
  const metadata = isObject(resource["metadata"]) ? resource["metadata"] : {};
  if (typeof metadata["namespace"] === "string" && metadata["namespace"] !== "") return resource;
  return { ...resource, metadata: { ...metadata, namespace: "default" } };
}
