/**
 * Offline stand-in for "what already exists in the cluster": clone sources (a test's
 * cloneSourceResource files) and mutate-existing targets (targetResources, --target-resource).
 */
import type { LabelSelector } from "../../engine/api/policy.js";
import { resourceApiVersion, resourceKind, resourceName, resourceNamespace, type Resource } from "../../engine/api/resource.js";
import { ok } from "../../engine/api/result.js";
import type { ExistingResources } from "../../engine/generate/index.js";

export function existingResources(resources: readonly Resource[]): ExistingResources {
  const same = (r: Resource, apiVersion: string, kind: string, namespace: string): boolean =>
    resourceKind(r) === kind && (apiVersion === "" || resourceApiVersion(r) === apiVersion) && resourceNamespace(r) === namespace;
  return {
    get: (apiVersion, kind, namespace, name) => ok(resources.find((r) => same(r, apiVersion, kind, namespace) && resourceName(r) === name)),
    // The selector is applied again by the engine, so every object of the kind is offered.
    list: (apiVersion, kind, namespace, _selector?: LabelSelector) => ok(resources.filter((r) => same(r, apiVersion, kind, namespace))),
  };
}
