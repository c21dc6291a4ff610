/** An ImageValidatingPolicy compiled once (compile.ts): what evaluate.ts runs per request. */
import type { JsonObject } from "../../api/json.js";
import type { CelProgram } from "../../cel/types.js";
import type { Glob } from "../../values/glob.js";
import type { CompiledConstraints } from "../../cel/validating-policy/match-constraints.js";

export interface NamedProgram {
  readonly name: string;
  readonly program: CelProgram;
}

interface ImageValidation {
  readonly expression: string;
  readonly program: CelProgram;
  readonly message: string;
  readonly messageExpression: CelProgram | undefined;
}

/** One `matchImageReferences` entry: a glob (compiled), or an expression over `ref`. */
export type ImageReferenceMatch =
  { readonly glob: Glob } | { readonly expression: string; readonly program: CelProgram };

/** One attestor as written, and why Bylaw cannot verify with it (keyless, notary, …), naming the field. */
export interface CompiledAttestor {
  readonly name: string;
  readonly attestor: JsonObject;
  readonly unsupported: string | undefined;
}

export interface CompiledImageValidatingBody {
  readonly constraints: CompiledConstraints;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly matchConditions: readonly NamedProgram[];
  readonly variables: readonly NamedProgram[];
  /** `spec.images`: extractors by name, after the built-in ones for the request's resource. */
  readonly images: readonly NamedProgram[];
  readonly matchImageReferences: readonly ImageReferenceMatch[];
  readonly attestors: readonly CompiledAttestor[];
  /** `spec.attestations` by name. */
  readonly attestations: ReadonlyMap<string, JsonObject>;
  readonly validations: readonly ImageValidation[];
  readonly auditAnnotations: readonly { readonly key: string; readonly program: CelProgram }[];
  /** `spec.credentials`, handed to the registry port with every read. */
  readonly credentials: JsonObject | undefined;
  readonly mutateDigest: boolean;
  readonly verifyDigest: boolean;
  readonly required: boolean;
  /** The first expression that did not compile, naming the policy and field: every matched resource gets it as an error. */
  readonly failure: string | undefined;
  /**
   * When `failure` is an `images` extractor's, its index among the policy's own: Kyverno's message
   * counts it after the built-in extractors of the request's resource (images.ts), so the index
   * it names depends on the resource (evaluate.ts failureText).
   */
  readonly failedImage: number | undefined;
  /** The autogen copies for pod controllers (Kyverno's ivpol autogen, as a ValidatingPolicy's), each its own body; none in a copy. */
  readonly autogen: readonly CompiledImageValidatingBody[];
}
