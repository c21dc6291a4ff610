/**
 * The images a verifyImages rule concerns (Kyverno `ExtractMatchingImages`): those its extractors
 * find (image-extractors.ts), kept when one of the rule's entries lists it in `imageReferences`.
 * An image is named as Kyverno's `ImageInfo.String()` names it: with its registry (`docker.io` by
 * default), and by digest when it has one, else by tag.
 */
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

export function imageMatches(image: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => wildcardMatch(p, image));
}

/** The images one of the entries names. */
export function matchingImages(images: readonly MatchedImage[], entries: readonly ImageVerification[]): MatchedImage[] {
  return images.filter((m) => entries.some((e) => imageMatches(m.image, e.imageReferences)));
}
