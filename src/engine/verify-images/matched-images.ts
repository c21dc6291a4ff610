/**
 * The images a verifyImages rule concerns (Kyverno `ExtractMatchingImages`): every container,
 * initContainer and ephemeralContainer image of a Pod or pod template (Kyverno's default
 * extractors, as the `images` variable holds them), kept when one of the rule's entries lists it in
 * `imageReferences`. An image is named as Kyverno's `ImageInfo.String()` names it: with its registry
 * (`docker.io` by default), and by digest when it has one, else by tag.
 */
import { isObject } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { extractImages } from "../context/images.js";
import { wildcardMatch } from "../values/wildcard.js";
import type { ImageVerification } from "./image-verification.js";

export interface MatchedImage {
  /** `registry/path@digest` or `registry/path:tag`. */
  readonly image: string;
  readonly registry: string;
  readonly path: string;
  readonly digest: string;
  /** Where the image is written in the resource: `/spec/containers/0/image`. */
  readonly pointer: string;
}

export function resourceImages(resource: Resource): MatchedImage[] {
  const out: MatchedImage[] = [];
  const found = extractImages(resource);
  if (found === undefined) return out;
  for (const list of Object.values(found)) {
    if (!isObject(list)) continue;
    for (const info of Object.values(list)) {
      if (!isObject(info)) continue;
      const [image, registry, path, digest, pointer] = ["reference", "registry", "path", "digest", "jsonPointer"].map((k) => String(info[k] ?? ""));
      out.push({ image: image ?? "", registry: registry ?? "", path: path ?? "", digest: digest ?? "", pointer: pointer ?? "" });
    }
  }
  return out;
}

export function imageMatches(image: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => wildcardMatch(p, image));
}

/** The resource's images that one of the entries names. */
export function matchingImages(resource: Resource, entries: readonly ImageVerification[]): MatchedImage[] {
  return resourceImages(resource).filter((m) => entries.some((e) => imageMatches(m.image, e.imageReferences)));
}
