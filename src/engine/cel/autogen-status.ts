/**
 * `status.autogen` of a policies.kyverno.io policy, as Kyverno 1.19's status controller writes it
 * (`{configs: {<config>: {targets, spec}}}`, `{}` when the policy has no pod-controller copies):
 * ValidatingPolicy and ImageValidatingPolicy (and Namespaced) by the JSON rewrite of their spec
 * (validating-policy/autogen.ts), MutatingPolicy (and Namespaced) by its expression rewrite
 * (mutating-policy-autogen.ts). The other kinds have no `status.autogen`: undefined.
 * Computed from the spec alone, as Kyverno does, whether or not the policy compiles.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { mutatingAutogenConfigs } from "./mutating-policy-autogen.js";
import { type AutogenConfig, autogenConfigs } from "./validating-policy/autogen.js";

const BY_KIND: Readonly<Record<string, (spec: JsonObject) => AutogenConfig[]>> = {
  ValidatingPolicy: autogenConfigs,
  NamespacedValidatingPolicy: autogenConfigs,
  ImageValidatingPolicy: autogenConfigs,
  NamespacedImageValidatingPolicy: autogenConfigs,
  MutatingPolicy: mutatingAutogenConfigs,
  NamespacedMutatingPolicy: mutatingAutogenConfigs,
};

export function celAutogenStatus(kind: string, spec: JsonValue | undefined): JsonObject | undefined {
  const generate = Object.hasOwn(BY_KIND, kind) ? BY_KIND[kind] : undefined;
  if (generate === undefined) return undefined;
  const configs = isObject(spec) ? generate(spec) : [];
  if (configs.length === 0) return {};
  const out: JsonObject = {};
  for (const c of configs)
    out[c.config] = {
      targets: c.targets.map((t) => ({ group: t.group, version: t.version, resource: t.resource, kind: t.kind })),
      spec: c.spec,
    };
  return { configs: out };
}
