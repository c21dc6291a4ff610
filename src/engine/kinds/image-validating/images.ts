/**
 * The images an ImageValidatingPolicy looks at (Kyverno `pkg/cel/compiler/images.go`): for Pods,
 * Jobs, Deployments, StatefulSets, DaemonSets, ReplicaSets and CronJobs the built-in `containers`,
 * `initContainers` and `ephemeralContainers` (of the object, or of the old object on DELETE), then
 * the policy's own `images` extractors by name; each list keeps the images matchImageReferences
 * select (every image when there are none): a glob (values/glob.ts: `*`, `?`, classes, `{a,b}`
 * alternatives, as Kyverno's glob library reads them) or an expression over `ref`.
 */
import { isObject, textOf, type JsonValue } from "../../api/json.js";
import { fromCel } from "../../cel/values.js";
import { CelFunctionError } from "../../cel/library.js";
import type { CelServices } from "../../cel/kyverno/index.js";
import type { CostBudget } from "../../cel/types.js";
import type { ImageReferenceMatch, NamedProgram } from "./body.js";

/** Where a resource of each (apiVersion, kind) holds its pod spec, as Kyverno's built-in extractors read it. */
const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
  "v1/Pod": ["spec"],
  "batch/v1/Job": ["spec", "template", "spec"],
  "apps/v1/Deployment": ["spec", "template", "spec"],
  "apps/v1/StatefulSet": ["spec", "template", "spec"],
  "apps/v1/DaemonSet": ["spec", "template", "spec"],
  "apps/v1/ReplicaSet": ["spec", "template", "spec"],
  "batch/v1/CronJob": ["spec", "jobTemplate", "spec", "template", "spec"],
};
const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;

/** The built-in image lists of the resource (none for another kind). */
export function builtInImages(resource: JsonValue): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!isObject(resource)) return out;
  const path = POD_SPEC_PATHS[`${textOf(resource["apiVersion"] ?? "")}/${textOf(resource["kind"] ?? "")}`];
  if (path === undefined) return out;
  let spec: JsonValue | undefined = resource;
  for (const p of path) spec = isObject(spec) ? spec[p] : undefined;
  for (const list of CONTAINER_LISTS) {
    const items = isObject(spec) && Array.isArray(spec[list]) ? spec[list] : [];
    out.set(
      list,
      items.flatMap((c) => (isObject(c) && typeof c["image"] === "string" ? [c["image"]] : [])),
    );
  }
  return out;
}

interface Run {
  readonly activation: Record<string, unknown>;
  readonly budget: CostBudget;
  readonly services: CelServices;
}

/** The policy's own extractors, evaluated: each must give a list of strings. */
export function customImages(extractors: readonly NamedProgram[], run: Run, into: Map<string, string[]>): void {
  for (const e of extractors) {
    const r = e.program.evaluate(run.activation, run.budget, run.services);
    if (!r.ok) throw new Error(`images ${e.name}: ${r.error.message}`);
    const value = fromCel(r.value);
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
      throw new Error(`images ${e.name}: the expression did not give a list of strings`);
    into.set(e.name, value);
  }
}

/** Whether matchImageReferences select the image; an expression's error is thrown. */
export function selectsImage(
  image: string,
  references: readonly ImageReferenceMatch[],
  run: Omit<Run, "activation">,
): boolean {
  if (references.length === 0) return true;
  for (const m of references) {
    if ("glob" in m) {
      if (m.glob.match(image)) return true;
      continue;
    }
    const r = m.program.evaluate({ ref: image }, run.budget, run.services);
    if (!r.ok) throw new CelFunctionError(`matchImageReferences ${m.expression}: ${r.error.message}`);
    if (r.value === true) return true;
  }
  return false;
}
