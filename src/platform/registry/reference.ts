/**
 * Image references as go-containerregistry's `name.ParseReference` reads them (Kyverno's parser):
 * `[registry/]repository[:tag][@digest]`. The first path component is the registry when it holds a
 * `.` or `:` or is `localhost`; otherwise the registry is Docker Hub, spelt `index.docker.io`, and a
 * one-component repository gains `library/`. No tag and no digest means the tag `latest`.
 */
import { err, ok, type Result } from "../../engine/index.js";

export interface ImageReference {
  /** The reference as written. */
  readonly image: string;
  /** `index.docker.io`, `ghcr.io`, `127.0.0.1:5000`. */
  readonly registry: string;
  /** `library/nginx`. */
  readonly repository: string;
  /** The digest when the reference names one, else the tag (Kyverno's `identifier`). */
  readonly identifier: string;
  readonly tag?: string;
  readonly digest?: string;
  /** `registry/repository` (go-containerregistry's `Context().Name()`). */
  readonly name: string;
}

export const DOCKER_HUB = "index.docker.io";
const REPOSITORY = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const REGISTRY = /^[a-zA-Z0-9.-]+(?::\d+)?$|^\[[0-9a-fA-F:.]+\](?::\d+)?$/;

export function parseImageReference(image: string): Result<ImageReference> {
  const bad = (why: string): Result<ImageReference> =>
    err("image-reference", `could not parse reference: ${image} (${why})`);
  if (image === "" || image !== image.trim()) return bad("an image reference is not empty and has no spaces");
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return bad(`${JSON.stringify(digest)} is not a sha256 digest`);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return bad(`${JSON.stringify(tag)} is not a valid tag`);
  }
  const slash = rest.indexOf("/");
  const first = slash < 0 ? "" : rest.slice(0, slash);
  let registry = DOCKER_HUB;
  let repository = rest;
  if (slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost")) {
    registry = first;
    repository = rest.slice(slash + 1);
    if (!REGISTRY.test(registry)) return bad(`${JSON.stringify(registry)} is not a registry host`);
  }
  if (registry === "docker.io") registry = DOCKER_HUB;
  if (registry === DOCKER_HUB && !repository.includes("/")) repository = `library/${repository}`;
  if (!REPOSITORY.test(repository))
    return bad(`${JSON.stringify(repository)} is not a repository name (lower case letters, digits and separators)`);
  if (tag === undefined && digest === undefined) tag = "latest";
  return ok({
    image,
    registry,
    repository,
    identifier: digest ?? tag ?? "latest",
    // A reference with a digest is a digest reference: a tag written beside it is not its tag.
    ...(digest === undefined && tag !== undefined ? { tag } : {}),
    ...(digest !== undefined ? { digest } : {}),
    name: `${registry}/${repository}`,
  });
}

/**
 * Whether go-containerregistry talks plain HTTP to this registry: loopback names and addresses
 * (`localhost:…`, `127.x`, `::1`) and the private ranges; every other registry is HTTPS only.
 */
export function registryScheme(registry: string): "http" | "https" {
  const host = registry.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  if (host === "localhost" || host === "::1" || /^127\./.test(host)) return "http";
  if (/^10\./.test(host) || /^192\.168\./.test(host) || /^172\.(1[6-9]|2\d|3[01])\./.test(host)) return "http";
  return "https";
}
