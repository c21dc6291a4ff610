/**
 * The `images` variable: images.{containers,initContainers,ephemeralContainers}.<containerName> for Pods,
 * for pod controllers (spec.template) and for CronJobs (spec.jobTemplate.spec.template).
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { imageInfoJson, parseImageReference } from "./image-info.js";

const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;

function podSpecOf(resource: Resource): { spec: JsonObject; pointer: string } | undefined {
  const kind = resource["kind"];
  const spec = resource["spec"];
  if (!isObject(spec)) return undefined;
  if (kind === "Pod") return { spec, pointer: "/spec" };
  if (kind === "CronJob") {
    const s = dig(spec, ["jobTemplate", "spec", "template", "spec"]);
    return s ? { spec: s, pointer: "/spec/jobTemplate/spec/template/spec" } : undefined;
  }
  const s = dig(spec, ["template", "spec"]);
  return s ? { spec: s, pointer: "/spec/template/spec" } : undefined;
}

function dig(v: JsonValue, path: readonly string[]): JsonObject | undefined {
  let cur: JsonValue = v;
  for (const p of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[p] ?? null;
  }
  return isObject(cur) ? cur : undefined;
}

/** Returns the images map, or undefined when the resource has no containers. */
export function extractImages(resource: Resource): JsonObject | undefined {
  const found = podSpecOf(resource);
  if (!found) return undefined;
  const out: JsonObject = {};
  for (const list of CONTAINER_LISTS) {
    const containers = found.spec[list];
    if (!Array.isArray(containers)) continue;
    const byName: JsonObject = {};
    containers.forEach((c, i) => {
      if (!isObject(c) || typeof c["image"] !== "string" || typeof c["name"] !== "string") return;
      const info = parseImageReference(c["image"]);
      if (info) byName[c["name"]] = imageInfoJson(info, `${found.pointer}/${list}/${i}/image`);
    });
    if (Object.keys(byName).length > 0) out[list] = byName;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
