/**
 * Offline stand-in for "what already exists in the cluster": clone sources (a test's
 * cloneSourceResource files) and mutate-existing targets (targetResources, --target-resource).
 */
import {
  type ExistingResources,
  guessedPlural,
  type LabelSelector,
  ok,
  type Resource,
  resourceApiVersion,
  resourceKind,
  resourceName,
  resourceNamespace,
} from "../engine/index.js";

export function existingResources(resources: readonly Resource[]): ExistingResources {
  const same = (r: Resource, apiVersion: string, kind: string, namespace: string): boolean =>
    resourceKind(r) === kind &&
    (apiVersion === "" || resourceApiVersion(r) === apiVersion) &&
    resourceNamespace(r) === namespace;
  // Kyverno's CLI fake client guesses a kind's resource as Kubernetes' UnsafeGuessKindToResource does.
  const kinds = (apiVersion: string): string[] => [
    ...new Set(resources.filter((r) => resourceApiVersion(r) === apiVersion).map(resourceKind)),
  ];
  return {
    kindOf: (apiVersion, resource) => ok(kinds(apiVersion).find((k) => guessedPlural(k) === resource)),
    resourceOf: (apiVersion, kind) => ok(kinds(apiVersion).includes(kind) ? guessedPlural(kind) : undefined),
    get: (apiVersion, kind, namespace, name) =>
      ok(resources.find((r) => same(r, apiVersion, kind, namespace) && resourceName(r) === name)),
    // The selector is applied again by the engine, so every object of the kind is offered. As a
    // Kubernetes list, an empty namespace lists every namespace (mutate.targets with no namespace).
    list: (apiVersion, kind, namespace, _selector?: LabelSelector) =>
      ok(
        resources.filter(
          (r) =>
            resourceKind(r) === kind &&
            (apiVersion === "" || resourceApiVersion(r) === apiVersion) &&
            (namespace === "" || resourceNamespace(r) === namespace),
        ),
      ),
  };
}
