/**
 * Kyverno's CEL image library (kyverno/sdk libs/image): `parseImageReference(string)` (and its
 * deprecated alias `image(string)`) gives a `kyverno.image` with registry(), repository(),
 * identifier(), tag(), digest() and containsDigest(); `isImage(string)`. References parse as
 * go-containerregistry's name.ParseReference does by default: Docker Hub is `index.docker.io`
 * (`docker.io` is its alias) with `library/` before a one-part repository, a missing tag is
 * `latest`, and a digest reference drops any tag.
 */
import { CelFunctionError, equality, type CelLibrary } from "../library.js";

const DEFAULT_REGISTRY = "index.docker.io";
const REPOSITORY = /^[a-z0-9_\-./]{2,255}$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[sh:0-9a-f]{71}$/;
const REGISTRY = /^[A-Za-z0-9.\-:[\]]+$/;

class ImageReference {
  constructor(
    readonly registry: string,
    readonly repository: string,
    readonly tag: string,
    readonly digest: string,
  ) {}

  /** The repository as Docker Hub names it: `library/` before a one-part name. */
  repositoryStr(): string {
    return this.registry === DEFAULT_REGISTRY && !this.repository.includes("/")
      ? `library/${this.repository}`
      : this.repository;
  }

  identifier(): string {
    return this.digest !== "" ? this.digest : this.tag;
  }
}

function repository(base: string): { registry: string; repository: string } | string {
  if (base === "") return "a repository name is required";
  let registry = DEFAULT_REGISTRY;
  let repo = base;
  const slash = base.indexOf("/");
  if (slash >= 0) {
    const head = base.slice(0, slash);
    if (head.includes(".") || head.includes(":") || head === "localhost") {
      registry = head === "docker.io" ? DEFAULT_REGISTRY : head;
      repo = base.slice(slash + 1);
    }
  }
  if (!REGISTRY.test(registry)) return `registries must be valid RFC 3986 URI authorities: ${registry}`;
  if (!REPOSITORY.test(repo))
    return `repository can only contain the characters \`abcdefghijklmnopqrstuvwxyz0123456789_-./\`: ${repo}`;
  return { registry, repository: repo };
}

function asTag(name: string): ImageReference | string {
  let base = name;
  let tag = "";
  const parts = name.split(":");
  const last = parts[parts.length - 1] ?? "";
  if (parts.length > 1 && !last.includes("/")) {
    base = parts.slice(0, -1).join(":");
    tag = last;
  }
  if (tag !== "" && !TAG.test(tag))
    return `tag can only contain the characters \`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.\`: ${tag}`;
  const r = repository(base);
  return typeof r === "string" ? r : new ImageReference(r.registry, r.repository, tag === "" ? "latest" : tag, "");
}

function asDigest(name: string): ImageReference | string {
  const parts = name.split("@");
  if (parts.length !== 2)
    return `a digest must contain exactly one '@' separator (e.g. registry/repository@digest) saw: ${name}`;
  const [base = "", digest = ""] = parts;
  if (!DIGEST.test(digest)) return `digest must be sha256: followed by 64 hexadecimal characters: ${digest}`;
  const tagged = asTag(base);
  const r =
    typeof tagged === "string" ? repository(base) : { registry: tagged.registry, repository: tagged.repository };
  return typeof r === "string" ? r : new ImageReference(r.registry, r.repository, "", digest);
}

/** name.ParseReference: a tag reference, else a digest reference, else an error. */
function parseImage(s: string): ImageReference | string {
  const t = asTag(s);
  if (typeof t !== "string") return t;
  const d = asDigest(s);
  return typeof d !== "string" ? d : `could not parse reference: ${s}`;
}

function parsed(s: string): ImageReference {
  const r = parseImage(s);
  if (typeof r === "string") throw new CelFunctionError(r);
  return r;
}

const T = "kyverno.image";

export function imageLibrary(): CelLibrary {
  return {
    name: "kyverno.image",
    types: [{ name: T, ctor: ImageReference }],
    functions: [
      { signature: `image(string): ${T}`, handler: parsed },
      { signature: `parseImageReference(string): ${T}`, handler: parsed },
      { signature: "isImage(string): bool", handler: (s: string) => typeof parseImage(s) !== "string" },
      { signature: `${T}.containsDigest(): bool`, handler: (i: ImageReference) => i.digest !== "" },
      { signature: `${T}.registry(): string`, handler: (i: ImageReference) => i.registry },
      { signature: `${T}.repository(): string`, handler: (i: ImageReference) => i.repositoryStr() },
      { signature: `${T}.identifier(): string`, handler: (i: ImageReference) => i.identifier() },
      { signature: `${T}.tag(): string`, handler: (i: ImageReference) => i.tag },
      { signature: `${T}.digest(): string`, handler: (i: ImageReference) => i.digest },
    ],
    operators: equality<ImageReference>(
      T,
      (a, b) => a.registry === b.registry && a.repository === b.repository && a.tag === b.tag && a.digest === b.digest,
    ),
  };
}
