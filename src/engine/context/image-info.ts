/**
 * Parse an image reference the way Kyverno fills the `images` variable:
 * registry (default docker.io), path, name, tag (default latest when there is no digest), digest,
 * reference and referenceWithTag.
 */
import type { JsonObject } from "../api/json.js";

interface ImageInfo {
  readonly registry: string;
  readonly path: string;
  readonly name: string;
  readonly tag: string;
  readonly digest: string;
  readonly reference: string;
  readonly referenceWithTag: string;
}

const DEFAULT_REGISTRY = "docker.io";

export function parseImageReference(image: string, defaultRegistry: string = DEFAULT_REGISTRY): ImageInfo | undefined {
  if (image === "" || /\s/.test(image)) return undefined;
  let rest = image;
  let digest = "";
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag = "";
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.lastIndexOf(":");
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  let registry = "";
  let path = rest;
  const firstSlash = rest.indexOf("/");
  if (firstSlash >= 0) {
    const head = rest.slice(0, firstSlash);
    if (head.includes(".") || head.includes(":") || head === "localhost") {
      registry = head;
      path = rest.slice(firstSlash + 1);
    }
  }
  if (registry === "") registry = defaultRegistry;
  if (path === "") return undefined;
  if (tag === "" && digest === "") tag = "latest";
  const name = path.slice(path.lastIndexOf("/") + 1);
  const base = `${registry}/${path}`;
  const reference = digest !== "" ? `${base}@${digest}` : `${base}:${tag}`;
  const referenceWithTag = tag !== "" ? `${base}:${tag}` : reference;
  return { registry, path, name, tag, digest, reference, referenceWithTag };
}

export function imageInfoJson(info: ImageInfo, jsonPointer: string): JsonObject {
  return { ...info, jsonPointer };
}
