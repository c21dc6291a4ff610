/**
 * `image_normalize`: Kyverno's `GetImageInfo(...).String()` — add the default registry when the
 * first path component is not a registry, parse with the distribution/reference grammar, default
 * the tag to `latest`, and print `registry/path:tag` (or `registry/path@digest`).
 */
import { RE2JS } from "re2js";
import type { FunctionDef } from "../../types.js";
import { stringArg } from "./args.js";
import { functionError } from "./errors.js";

export interface ImageOptions {
  /** Kyverno ConfigMap `defaultRegistry`; `docker.io` unless configured. */
  readonly defaultRegistry?: string;
  /** Kyverno ConfigMap `enableDefaultRegistryMutation`; true unless configured. */
  readonly enableDefaultRegistryMutation?: boolean;
}

const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[(?:[a-fA-F0-9:]+)\\])`;
const DOMAIN_AND_PORT = `${HOST}(?::[0-9]+)?`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*";
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const NAME = `(?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME}`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}";

/** The compiled reference grammar; built per function table (on first use), not held at module level. */
interface Grammar {
  readonly reference: RE2JS;
  readonly name: RE2JS;
}

function compileGrammar(): Grammar {
  return {
    reference: RE2JS.compile(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`),
    name: RE2JS.compile(`^(?:(${DOMAIN_AND_PORT})/)?(${REMOTE_NAME})$`),
  };
}
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

function submatches(re: RE2JS, s: string): string[] | undefined {
  const m = re.matcher(s);
  if (!m.matches()) return undefined;
  const out: string[] = [];
  for (let g = 0; g <= m.groupCount(); g++) out.push(m.group(g) ?? "");
  return out;
}

/** go-digest `Validate`: a known algorithm and the right number of lower-case hex digits. */
function validateDigest(d: string): string | undefined {
  const i = d.indexOf(":");
  if (i <= 0 || i + 1 === d.length) return "invalid checksum digest format";
  const algorithm = d.slice(0, i);
  const encoded = d.slice(i + 1);
  const length = DIGEST_HEX_LENGTH[algorithm];
  if (length === undefined) return "unsupported digest algorithm";
  if (encoded.length !== length) return "invalid checksum digest length";
  if (!/^[a-f0-9]+$/.test(encoded)) return "invalid checksum digest format";
  return undefined;
}

interface ImageReference {
  domain: string;
  path: string;
  tag: string;
  digest: string;
}

/** distribution/reference `Parse`, or its error text. */
function parseReference(g: Grammar, s: string): ImageReference | string {
  const m = submatches(g.reference, s);
  if (m === undefined) {
    if (s === "") return "repository name must have at least one component";
    if (submatches(g.reference, s.toLowerCase()) !== undefined) return "repository name must be lowercase";
    return "invalid reference format";
  }
  const [, name = "", tag = "", digest = ""] = m;
  if (name.length > 255) return "repository name must not be more than 255 characters";
  const nm = submatches(g.name, name);
  const domain = nm?.[1] ?? "";
  const path = nm === undefined ? name : (nm[2] ?? "");
  if (digest !== "") {
    const err = validateDigest(digest);
    if (err !== undefined) return err;
  }
  return { domain, path, tag, digest };
}

function addDefaultRegistry(name: string, registry: string): string {
  const i = name.indexOf("/");
  if (i === -1) return `${registry}/${name}`;
  const first = name.slice(0, i);
  if (!/[.:]/.test(first) && first !== "localhost" && first.toLowerCase() === first) return `${registry}/${name}`;
  return name;
}

/** The normalized image reference, or Kyverno's error text. */
export function normalizeImage(
  image: string,
  options: ImageOptions = {},
  grammar: Grammar = compileGrammar(),
): string | { error: string } {
  const registry = options.defaultRegistry ?? "docker.io";
  const mutate = options.enableDefaultRegistryMutation ?? true;
  const full = addDefaultRegistry(image, registry);
  const ref = parseReference(grammar, full);
  if (typeof ref === "string") {
    return {
      error: `bad image: ${full}, defaultRegistry: ${registry}, enableDefaultRegistryMutation: ${mutate}: ${ref}`,
    };
  }
  const domain = full !== image && !mutate ? "" : ref.domain;
  const base = domain !== "" ? `${domain}/${ref.path}` : ref.path;
  if (ref.digest !== "") return `${base}@${ref.digest}`;
  return `${base}:${ref.tag === "" ? "latest" : ref.tag}`;
}

export function imageFunctions(options: ImageOptions = {}): readonly FunctionDef[] {
  // Compiled on the table's first image_normalize call, once: most policies never call it, and the
  // grammar costs about 1 ms to compile per function table.
  let compiled: Grammar | undefined;
  const grammar = (): Grammar => (compiled ??= compileGrammar());
  return [
    {
      name: "image_normalize",
      args: [{ types: ["string"] }],
      returns: "string",
      description: "normalizes an image reference",
      call: (args) => {
        const r = normalizeImage(stringArg("image_normalize", args, 0), options, grammar());
        if (typeof r !== "string") throw functionError("image_normalize", r.error);
        return r;
      },
    },
  ];
}
