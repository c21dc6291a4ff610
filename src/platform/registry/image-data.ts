/**
 * The JSON a policy reads about an image, in Kyverno's two shapes:
 * - an `imageRegistry` context entry (Kyverno's `loaders/imagedata.go`): `image` (as written),
 *   `resolvedImage` (`registry/repository@digest`), `registry`, `repository`, `identifier` (tag or
 *   digest), `manifest` and `configData`, both as the registry sent them;
 * - CEL `image.GetMetadata` / `image.getMetadata` (the sdk's image data loader): the same names with
 *   `config` for the config, plus `tag` or `digest`, `imageIndex` when the reference names an index,
 *   and `resolvedImage` that keeps the tag (`registry/repository:tag@digest`).
 */
import type { JsonObject } from "../../engine/index.js";
import type { FetchedImage } from "./registry-client.js";

/** The forms an image's data is read in; "digest" is verifyImages' (mutateDigest): only what the reference resolves to. */
export type ImageDataForm = "context" | "metadata" | "digest";

export function imageDataOf(image: FetchedImage, form: ImageDataForm): JsonObject {
  const r = image.ref;
  if (form === "digest") return { digest: image.digest };
  if (form === "context") {
    return {
      image: r.image,
      resolvedImage: `${r.name}@${image.digest}`,
      registry: r.registry,
      repository: r.repository,
      identifier: r.identifier,
      manifest: image.manifest,
      configData: image.config,
    };
  }
  return {
    image: r.image,
    resolvedImage: r.tag !== undefined ? `${r.name}:${r.tag}@${image.digest}` : `${r.name}@${image.digest}`,
    registry: r.registry,
    repository: r.repository,
    identifier: r.identifier,
    ...(r.tag !== undefined ? { tag: r.tag } : {}),
    digest: image.digest,
    ...(image.index !== undefined ? { imageIndex: image.index } : {}),
    manifest: image.manifest,
    config: image.config,
  };
}

/** Kyverno's wording for a failed fetch, around the client's reason. */
export function fetchFailed(reference: string, why: string): string {
  return `failed to fetch image descriptor: ${reference}, error: ${why}`;
}
