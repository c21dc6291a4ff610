/**
 * The images a verifyImages rule looks at in a resource (Kyverno `ExtractImagesFromResource` with
 * the rule's `imageExtractors`): the rule's extractors for the resource's kind when it has some,
 * else Kyverno's standard ones, which exist only for Pods and the pod controllers (DaemonSet,
 * Deployment, ReplicaSet, ReplicationController, StatefulSet, Job, CronJob): initContainers,
 * containers and ephemeralContainers. An extractor's `path` (`/spec/tasks/*\/image`, `*` over list
 * items or map values) ends at an object whose `value` field (by default the path's last segment)
 * holds the image, optionally transformed by `jmesPath`; its pointer is where a digest is written.
 */
import { isObject, type JsonObject, type JsonValue, textOf } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { err, ok, type Result } from "../api/result.js";
import { parseImageReference } from "../context/image-info.js";
import type { MatchedImage } from "./matched-images.js";

/** Evaluates an extractor's `jmesPath` over the extracted string. */
export type ImageSearch = (expression: string, value: JsonValue) => Result<JsonValue>;

const STANDARD_KINDS: Readonly<Record<string, readonly string[]>> = {
  Pod: ["spec"],
  DaemonSet: ["spec", "template", "spec"],
  Deployment: ["spec", "template", "spec"],
  ReplicaSet: ["spec", "template", "spec"],
  ReplicationController: ["spec", "template", "spec"],
  StatefulSet: ["spec", "template", "spec"],
  Job: ["spec", "template", "spec"],
  CronJob: ["spec", "jobTemplate", "spec", "template", "spec"],
};
const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

interface Extractor {
  readonly fields: readonly string[];
  readonly key: string;
  readonly value: string;
  readonly jmesPath: string;
}

export function extractImages(
  resource: Resource,
  configs: JsonValue | undefined,
  search: ImageSearch,
): Result<MatchedImage[]> {
  const kind = typeof resource["kind"] === "string" ? resource["kind"] : "";
  const custom = isObject(configs) ? configs[kind] : undefined;
  const extractors = Array.isArray(custom) ? custom.filter(isObject).map(readExtractor) : standard(kind);
  if (Array.isArray(custom) && extractors.length === 0)
    return err("image-extractors", `no extractors found for ${kind}`);
  const out: MatchedImage[] = [];
  for (const e of extractors) {
    const found = walk(resource, [], e.fields, e, search, out);
    if (!found.ok) return found;
  }
  return ok(out);
}

function standard(kind: string): Extractor[] {
  const base = STANDARD_KINDS[kind];
  if (base === undefined) return [];
  return CONTAINER_LISTS.map((list) => ({ fields: [...base, list, "*"], key: "name", value: "image", jmesPath: "" }));
}

function readExtractor(c: JsonObject): Extractor {
  const fields = textOf(c["path"] ?? "")
    .split("/")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const given = typeof c["value"] === "string" ? c["value"] : "";
  const value = given !== "" ? given : (fields.pop() ?? "");
  return {
    fields,
    key: typeof c["key"] === "string" ? c["key"] : "",
    value,
    jmesPath: typeof c["jmesPath"] === "string" ? c["jmesPath"] : "",
  };
}

function walk(
  obj: JsonValue | undefined,
  path: string[],
  fields: readonly string[],
  e: Extractor,
  search: ImageSearch,
  out: MatchedImage[],
): Result<true> {
  if (obj === undefined || obj === null) return ok(true);
  if (fields[0] === "*") {
    if (Array.isArray(obj)) {
      for (const [i, v] of obj.entries()) {
        const r = walk(v, [...path, String(i)], fields.slice(1), e, search, out);
        if (!r.ok) return r;
      }
      return ok(true);
    }
    if (isObject(obj)) {
      for (const [k, v] of Object.entries(obj)) {
        const r = walk(v, [...path, k], fields.slice(1), e, search, out);
        if (!r.ok) return r;
      }
      return ok(true);
    }
    return err("image-extractors", "invalid type");
  }
  if (!isObject(obj)) return err("image-extractors", "invalid image config");
  const [head, ...rest] = fields;
  if (head !== undefined) return walk(obj[head], [...path, head], rest, e, search, out);
  const pointer = `/${path.join("/")}/${e.value}`;
  if (e.key !== "" && typeof obj[e.key] !== "string") return err("image-extractors", "invalid key");
  let value: JsonValue | undefined = obj[e.value];
  if (typeof value !== "string" || value.trim() === "") return ok(true);
  if (e.jmesPath !== "") {
    const r = search(e.jmesPath, value);
    if (!r.ok) return err("image-extractors", `failed to apply jmespath ${e.jmesPath}: ${r.error.message}`);
    if (typeof r.value !== "string")
      return err(
        "image-extractors",
        `jmespath ${e.jmesPath} must produce a string, but produced ${JSON.stringify(r.value)}`,
      );
    value = r.value;
  }
  const info = parseImageReference(value);
  if (info === undefined) return err("image-extractors", `invalid image '${value}' (invalid reference format)`);
  out.push({ image: info.reference, registry: info.registry, path: info.path, digest: info.digest, pointer });
  return ok(true);
}
