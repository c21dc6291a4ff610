/**
 * Runs one generate block (Kyverno `pkg/background/generate/*`) for one trigger: the objects to create, with the labels
 * Kyverno adds and the sync settings the background controller acts on. Matching, context,
 * preconditions, variable substitution and foreach expansion happen before this is called.
 */
import type { Resource } from "../api/resource.js";
import { err, ok, type Result } from "../api/result.js";
import { cloneList, cloneOne, type CloneOutcome } from "./from-clone.js";
import { buildFromData } from "./from-data.js";
import { applyLabels, generateLabels, type SourceInfo } from "./labels.js";
import { readGenerate } from "./read-generate.js";
import type { TargetRef } from "./target.js";
import type { GeneratedResource } from "../api/generated-resource.js";
import type { GenerateInput, GenerateSpec } from "./types.js";

const PATH = "generate";

export function generateResources(input: GenerateInput): Result<readonly GeneratedResource[]> {
  const { spec, problems } = readGenerate(input.generate, PATH);
  const first = problems[0];
  if (first !== undefined) return err("generate-invalid", `${first.path}: ${first.message}`, first.path);
  if (spec.hasForeach) {
    return err(
      "generate-foreach",
      "generate.foreach must be expanded by the caller: pass one element's pattern at a time",
      `${PATH}.foreach`,
    );
  }
  const kinds = [
    spec.data !== undefined && "data",
    spec.clone !== undefined && "clone",
    spec.cloneList !== undefined && "cloneList",
  ].filter((x): x is string => typeof x === "string");
  if (kinds.length > 1)
    return err(
      "generate-invalid",
      `only one of data, clone or cloneList can be specified, found ${kinds.join(" and ")}`,
      PATH,
    );

  if (spec.cloneList !== undefined) {
    if (spec.cloneList.kinds.length === 0) {
      return err(
        "generate-invalid",
        "generate.cloneList.kinds is empty: list the kinds to clone, e.g. v1/Secret",
        `${PATH}.cloneList.kinds`,
      );
    }
    return fromClones(input, spec, cloneList(spec, spec.cloneList, input.existing, PATH));
  }
  const target = requireTarget(spec);
  if (!target.ok) return target;
  if (spec.clone !== undefined) return fromClones(input, spec, cloneOne(spec, spec.clone, input.existing, PATH));
  // With neither data nor clone Kyverno generates the object with its metadata only.
  const built = buildFromData(spec.data === undefined ? { ...spec, data: {} } : spec, target.value, PATH);
  return built.ok ? ok([finish(input, spec, built.value)]) : built;
}

function requireTarget(spec: GenerateSpec): Result<TargetRef> {
  for (const field of ["apiVersion", "kind", "name"] as const) {
    if (spec[field] === "") {
      return err(
        "generate-invalid",
        `generate.${field} is empty: the object to generate needs an apiVersion, a kind and a name`,
        `${PATH}.${field}`,
      );
    }
  }
  return ok({ apiVersion: spec.apiVersion, kind: spec.kind, name: spec.name, namespace: spec.namespace });
}

function fromClones(
  input: GenerateInput,
  spec: GenerateSpec,
  clones: Result<CloneOutcome[]>,
): Result<readonly GeneratedResource[]> {
  if (!clones.ok) return clones;
  return ok(clones.value.map((c) => finish(input, spec, c.resource, c)));
}

function finish(input: GenerateInput, spec: GenerateSpec, resource: Resource, clone?: CloneOutcome): GeneratedResource {
  const sourceInfo: SourceInfo | undefined = clone?.sourceInfo;
  const { toApply, labels } = applyLabels(resource, generateLabels(input, sourceInfo));
  return {
    resource,
    labels,
    toApply,
    synchronize: spec.synchronize,
    orphanDownstreamOnPolicyDelete: spec.orphanDownstreamOnPolicyDelete,
    ...(clone !== undefined ? { source: clone.source } : {}),
  };
}
