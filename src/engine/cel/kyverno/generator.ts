/**
 * Kyverno's `generator` library (kyverno/sdk extensions/cel/libs/generator), declared in the
 * GeneratingPolicy environment only: `generator.Apply(namespace, [objects])` (and `apply` since
 * Kyverno 1.18) asks for the objects to be generated in `namespace` and answers true. The handler
 * records the request in the evaluation's generator sink (CelServices.generator): nothing is
 * written here; the caller decides what becomes of the request (tenant-isolation.md rule 5). Where
 * no sink is given (matchConditions, variables read outside generate), the call is an error.
 */
import type { JsonObject } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { CelFunctionError, namespace, type CelLibrary } from "../library.js";
import { fromCel } from "../values.js";
import { servicesFor, type ServiceSlot } from "./services.js";

const CONTEXT = "generator.Context";

export function generatorLibrary(slot: ServiceSlot): CelLibrary {
  const apply = (_: unknown, ns: string, list: unknown): boolean => {
    const sink = servicesFor(slot, "generator.Apply").generator;
    if (sink === undefined)
      throw new CelFunctionError("generator.Apply is only available in a GeneratingPolicy's spec.generate expressions");
    const items = fromCel(list);
    const objects: JsonObject[] = [];
    for (const item of Array.isArray(items) ? items : []) {
      if (!isObject(item)) throw new CelFunctionError("failed to generate resources: each resource must be a map");
      objects.push(item);
    }
    sink.apply(ns, objects);
    return true;
  };
  const signature = "(string, list<map<string, dyn>>): bool";
  return {
    name: "kyverno.generator",
    ...namespace("generator", CONTEXT),
    functions: [
      { signature: `${CONTEXT}.Apply${signature}`, handler: apply },
      { signature: `${CONTEXT}.apply${signature}`, handler: apply },
    ],
  };
}
