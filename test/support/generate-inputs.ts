/** Test helpers: an in-memory ExistingResources and a default GenerateInput. */
import type { JsonObject } from "../../src/engine/api/json.js";
import {
  resourceApiVersion,
  resourceKind,
  resourceName,
  resourceNamespace,
  type Resource,
} from "../../src/engine/api/resource.js";
import { err, ok } from "../../src/engine/api/result.js";
import type { ExistingResources, GenerateInput } from "../../src/engine/generate/types.js";

/** Looks objects up by apiVersion, kind, namespace and name; `list` ignores the selector on purpose. */
export function memoryExisting(
  objects: readonly Resource[],
  failWith?: string,
): ExistingResources & { calls: string[] } {
  const calls: string[] = [];
  const fits = (r: Resource, apiVersion: string, kind: string, namespace: string): boolean =>
    (apiVersion === "" || resourceApiVersion(r) === apiVersion) &&
    resourceKind(r) === kind &&
    resourceNamespace(r) === namespace;
  return {
    calls,
    get(apiVersion, kind, namespace, name) {
      calls.push(`get ${apiVersion} ${kind} ${namespace} ${name}`);
      if (failWith !== undefined) return err("test", failWith);
      return ok(objects.find((r) => fits(r, apiVersion, kind, namespace) && resourceName(r) === name));
    },
    list(apiVersion, kind, namespace) {
      calls.push(`list ${apiVersion} ${kind} ${namespace}`);
      if (failWith !== undefined) return err("test", failWith);
      return ok(objects.filter((r) => fits(r, apiVersion, kind, namespace)));
    },
  };
}

export const namespaceTrigger: Resource = {
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: "hello-world-namespace", uid: "ns-uid-1" },
};

export function input(generate: JsonObject, over: Partial<GenerateInput> = {}): GenerateInput {
  return {
    policy: { kind: "ClusterPolicy", name: "add-quota", namespace: "" },
    rule: "generate-resourcequota",
    generate,
    trigger: namespaceTrigger,
    existing: memoryExisting([]),
    ...over,
  };
}

export function secret(
  namespace: string,
  name: string,
  extra: JsonObject = {},
  labels: Record<string, string> = {},
): Resource {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace, uid: `${namespace}-${name}-uid`, labels },
    type: "Opaque",
    data: { key: "dmFsdWU=" },
    ...extra,
  };
}
