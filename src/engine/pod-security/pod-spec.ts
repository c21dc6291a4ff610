/**
 * The pod a podSecurity rule checks (Kyverno's `getSpec`), the reduced pods its exclusions are
 * evaluated on (`GetPodWithMatchingContainers`), and the field paths reported for controllers
 * (`convertChecks`).
 */
import { isObject, type JsonObject } from "../api/json.js";
import { wildcardMatch } from "../values/wildcard.js";
import { list, obj, text, type ContainerList } from "./read.js";
import type { PodView } from "./types.js";

/** Kinds whose pod is `spec.template` (Kyverno decodes them all as a Deployment). */
const POD_CONTROLLER_KINDS: readonly string[] = [
  "DaemonSet",
  "Deployment",
  "Job",
  "StatefulSet",
  "ReplicaSet",
  "ReplicationController",
];

function view(metadata: JsonObject | undefined, spec: JsonObject | undefined): PodView {
  const annotations: Record<string, string> = {};
  const raw = obj(metadata, "annotations");
  if (raw) for (const [k, v] of Object.entries(raw)) if (typeof v === "string") annotations[k] = v;
  return {
    name: text(metadata, "name") ?? "",
    namespace: text(metadata, "namespace") ?? "",
    annotations,
    spec: spec ?? {},
  };
}

/**
 * The pod to check: a Pod itself; `spec.template` of a pod controller; for a CronJob the spec of
 * `spec.jobTemplate.spec.template` with the metadata of `spec.jobTemplate` (as Kyverno reads it).
 * Undefined for any other kind.
 */
export function podOf(resource: JsonObject): PodView | undefined {
  const kind = resource["kind"];
  const spec = obj(resource, "spec");
  if (kind === "Pod") return view(obj(resource, "metadata"), spec);
  if (typeof kind === "string" && POD_CONTROLLER_KINDS.includes(kind)) {
    const template = obj(spec, "template");
    return view(obj(template, "metadata"), obj(template, "spec"));
  }
  if (kind === "CronJob") {
    const jobTemplate = obj(spec, "jobTemplate");
    return view(obj(jobTemplate, "metadata"), obj(obj(obj(jobTemplate, "spec"), "template"), "spec"));
  }
  return undefined;
}

/** For an exclusion without images: the pod with one container named `fake` (pod-level fields only). */
export function podLevelPod(pod: PodView): PodView {
  const spec: JsonObject = { ...pod.spec, containers: [{ name: "fake" }] };
  delete spec["initContainers"];
  delete spec["ephemeralContainers"];
  return { ...pod, spec };
}

/** For an exclusion with images: only the containers whose image matches, and no pod-level fields. */
export function matchingContainersPod(pod: PodView, images: readonly string[]): PodView {
  const spec: JsonObject = {};
  for (const key of ["containers", "initContainers", "ephemeralContainers"] as const) {
    const matched = list(pod.spec, key).filter((c) => {
      const image = isObject(c) ? (text(c, "image") ?? "") : "";
      return images.some((p) => wildcardMatch(p, image));
    });
    if (matched.length > 0) spec[key] = matched;
  }
  return { name: pod.name, namespace: pod.namespace, annotations: {}, spec };
}

/** The name of container `index` in `key` of the pod ("" when there is none). */
export function containerName(pod: PodView, key: ContainerList, index: number): string {
  const c = list(pod.spec, key)[index];
  return isObject(c) ? (text(c, "name") ?? "") : "";
}

/**
 * The image of each container by name, searching containers, init containers, then ephemeral
 * containers (the first container of a name wins). The index is built on the first lookup, in one
 * pass over the pod, so looking up every container costs as much as one pass, not one per name.
 */
export class ContainerImages {
  #byName: Map<string, string | undefined> | undefined;

  constructor(private readonly pod: PodView) {}

  imageOf(name: string): string | undefined {
    this.#byName ??= indexImages(this.pod);
    return this.#byName.get(name);
  }
}

function indexImages(pod: PodView): Map<string, string | undefined> {
  const byName = new Map<string, string | undefined>();
  for (const key of ["containers", "initContainers", "ephemeralContainers"] as const) {
    for (const c of list(pod.spec, key)) {
      if (!isObject(c)) continue;
      const name = text(c, "name");
      if (name !== undefined && !byName.has(name)) byName.set(name, text(c, "image"));
    }
  }
  return byName;
}

/**
 * Kyverno's `convertChecks`: every `spec` becomes `spec.template.spec` (pod controllers) or
 * `spec.jobTemplate.spec.template.spec` (CronJob), then, for every kind including Pod, every
 * `metadata` becomes `spec.template.metadata`. Both are plain substring replacements.
 */
export function reportedField(field: string, kind: string): string {
  let out = field;
  if (POD_CONTROLLER_KINDS.includes(kind)) out = out.replaceAll("spec", "spec.template.spec");
  else if (kind === "CronJob") out = out.replaceAll("spec", "spec.jobTemplate.spec.template.spec");
  return out.replaceAll("metadata", "spec.template.metadata");
}
