/**
 * Everything the pure engine needs from the outside world comes through these ports.
 * The CLI passes offline implementations (values files, mocks); the server passes live ones.
 */
import type { JsonValue } from "./api/json.js";
import type { Result } from "./api/result.js";
import type { TypedKinds } from "./mutate/typed/index.js";

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMillis(): number;
}

export interface Random {
  /** A float in [0, 1). */
  next(): number;
}

export interface Hasher {
  sha256Hex(data: string): string;
  sha1Hex(data: string): string;
  md5Hex(data: string): string;
}

/** Answers for context entries that read from a cluster or another service. */
export interface ContextSources {
  /**
   * Whether entries of this kind can be loaded at all here. When false the entry is not loaded
   * (nor are its variables substituted), as Kyverno's CLI does without a cluster; see `unloadable`.
   */
  canLoad(kind: "configMap" | "apiCall" | "imageRegistry" | "globalReference"): boolean;
  /**
   * What an entry this port cannot load (`canLoad` false, or an "unavailable" answer) means when no
   * value stands in for its name (from a values file): "error" (the default) makes the rule an error
   * naming the entry, since a rule must never pass on data nobody read; "skip", which a caller must
   * ask for, leaves the name unset, as Kyverno's CLI does.
   * With "error", an imageRegistry entry that a later variable entry's `default` reads is skipped
   * all the same (the default applies, as in Kyverno's CLI) and `warn` says so; Bylaw's CLI asks for
   * Kyverno's skipping of every such entry with `skipAsKyvernoCli` below.
   */
  readonly unloadable?: "skip" | "error";
  /**
   * Kyverno's CLI: a configMap, globalReference or imageRegistry entry nothing here can load (and
   * no value stands in for its name) is skipped, as Kyverno's CLI skips what it has no resolver,
   * store or registry client for: the name stays unset, so a plain read of it is an unknown key (an
   * error) while a fallback the policy gives (`{{ cm.data.x || '' }}`, a later variable's default)
   * applies; `warn` names the entry and how to give its data. Without it these stay errors
   * (`unloadable`). apiCall entries are not skipped (Kyverno's CLI answers them from its resources).
   */
  readonly skipAsKyvernoCli?: boolean;
  /** Told what the engine did in the user's stead (an imageRegistry entry skipped for a default); optional. */
  warn?(message: string): void;
  /**
   * `namespace` as the entry wrote it after substitution ("" when absent). `caller` says whose
   * policy asks, so a live implementation can confine a namespaced Policy to its namespace.
   */
  configMap(namespace: string, name: string, caller?: ContextCaller): Result<JsonValue>;
  apiCall(request: ApiCallRequest, caller?: ContextCaller): Result<JsonValue>;
  /** `name` after substitution: `<entry>` or `<entry>.<projection>`, as Kyverno reads it. */
  globalReference(name: string, caller?: ContextCaller): Result<JsonValue>;
  /**
   * Data about an image from its registry (`reference` after substitution). `request.form`:
   * "context" for an `imageRegistry` context entry, "metadata" (the default) for CEL
   * `image.GetMetadata`; "digest" (`{digest}`: what the reference resolves to, for verifyImages
   * mutateDigest), "signatures" (the image's cosign signatures, see `ImageSignatures`) and
   * "attestations" (its cosign attestations, the same shape) for verifyImages; `credentials` is the entry's `imageRegistryCredentials`.
   */
  imageData(reference: string, request?: ImageDataRequest): Result<JsonValue>;
  /**
   * One object by apiVersion, plural resource name, namespace ("" for cluster-scoped) and name,
   * for Kyverno's CEL `resource.Get`. Absent: this port reads no objects (an error naming the call).
   */
  getResource?(request: ResourceRead, caller?: ContextCaller): Result<JsonValue>;
  /** The objects of a resource in a namespace ("" for all or cluster-scoped), for `resource.List`: `{items: [...]}`. */
  listResources?(request: ResourceList, caller?: ContextCaller): Result<JsonValue>;
  /**
   * Parameter objects. With `kind`: the objects of that kind, in every namespace, that a validate.cel
   * rule's paramRef may select (a test's `paramResources`, `bylaw apply`'s resources); absent port:
   * a rule that needs them is an error naming its paramRef. Without `kind`: every object a
   * ValidatingAdmissionPolicy binding's paramRef chooses from, of any kind, as Kyverno's CLI hands
   * them over (a test's `paramResources`; none for `bylaw apply`, whose Kyverno counterpart passes
   * none); absent port: none.
   */
  paramObjects?(kind?: ParamKind): Result<readonly JsonValue[]>;
  /**
   * Whether the objects stand for a cluster: a test gave `clusterResources`. Kyverno 1.19's test then
   * hands its PolicyProcessor a fake cluster client (`Cluster: true`), and a ValidatingAdmissionPolicy
   * with bindings is evaluated as against a cluster (pkg/admissionpolicy `processVAPWithClient`):
   * the policy's matchConstraints decide too, the Namespace is read from the objects, and params are
   * read by paramKind (`CollectParams`), with `paramObjects(kind)` and `getResource`. Absent: false.
   */
  readonly clusterGiven?: boolean;
}

/** A ValidatingAdmissionPolicy's `spec.paramKind`. */
export interface ParamKind {
  readonly apiVersion: string;
  readonly kind: string;
}

export interface ImageDataRequest {
  readonly form: "context" | "metadata" | "digest" | "signatures" | "attestations";
  /** forms "signatures" and "attestations": the repository that holds them (verifyImages `repository`), instead of the image's own. */
  readonly repository?: string;
  /** `imageRegistryCredentials` as the policy wrote it (secrets, providers, allowInsecureRegistry). */
  readonly credentials?: Readonly<Record<string, JsonValue>>;
  readonly caller?: ContextCaller;
}

/**
 * The answer to an `imageData` request of form "signatures": the digest the reference resolves to
 * (of the index, for an index), and the layers of cosign's signature manifest
 * (`<repository>:sha256-<hex>.sig`), none when there is no such manifest. `payload` is the layer's
 * bytes in base64 (the simple-signing JSON, exactly as signed); `signature` the layer's
 * `dev.cosignproject.cosign/signature` annotation (base64), "" when absent. Form "attestations"
 * answers the same shape from `<repository>:sha256-<hex>.att`: each `payload` is a layer's DSSE
 * envelope (JSON, base64), whose own `signatures` are what a key must verify.
 */
export interface ImageSignatures {
  readonly digest: string;
  readonly signatures: readonly { readonly payload: string; readonly signature: string }[];
}

export interface ResourceRead {
  readonly apiVersion: string;
  /** Plural lower-case resource name, as in a URL: `configmaps`. */
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

export interface ResourceList {
  readonly apiVersion: string;
  readonly resource: string;
  readonly namespace: string;
  /** Label equality selector; empty: every object. */
  readonly labels?: Readonly<Record<string, string>>;
}

/** Who asks a ContextSources port: the policy's namespace ("" for a ClusterPolicy). */
export interface ContextCaller {
  readonly policyNamespace: string;
}

/**
 * Error kinds from a ContextSources port that an `apiCall.default` never replaces: the call was
 * refused (a namespaced Policy reaching outside its namespace), or the data is not there to read
 * (a cache not synced, over its budget), or the call is of a form Bylaw cannot make yet. All are
 * rule errors, never a value the policy chose. "pending": a network call a live port has recorded
 * but not made yet (the caller makes it and evaluates again, docs/adr/0012); never replaced either.
 */
export const CONTEXT_ERRORS_WITHOUT_DEFAULT: ReadonlySet<string> = new Set([
  "refused",
  "not-ready",
  "unsupported",
  "pending",
]);

export interface ApiCallRequest {
  readonly urlPath?: string;
  readonly serviceUrl?: string;
  /** `service.caBundle` after substitution (service calls only). */
  readonly caBundle?: string;
  /** `service.headers` after substitution, or the headers CEL `http.Get/Post` gives (service calls only). */
  readonly headers?: readonly { readonly key: string; readonly value: string }[];
  readonly method: "GET" | "POST";
  /** `data` as the policy wrote it after substitution: a list of `{key, value}`; for `form: "http"`, the body as is. */
  readonly data?: JsonValue;
  /**
   * "http": a CEL `http.Get/Post` call (Kyverno's http library), not an apiCall entry: `data` is the
   * request body itself, and the answer is the response's JSON body with its `statusCode` added
   * (`{body, statusCode}` when the body is not an object), whatever the status.
   */
  readonly form?: "http";
}

/**
 * A caller's bound on evaluations (the webhook's per-review deadline). The engine calls `check()`
 * after every `ticksPerCheck` (default TICKS_PER_CHECK) units of work done under this
 * interruption, counted across calls (engine/interrupt); `check()` throws an
 * `EvaluationInterrupted` to stop the evaluation. Reading a clock happens here, not in the engine.
 */
export interface Interruption {
  /** Units of work since the last check, kept here by the engine between calls (start it at 0). */
  ticks: number;
  /** Units of work between two checks (default TICKS_PER_CHECK, 1,024): fewer for a tight time bound. */
  readonly ticksPerCheck?: number | undefined;
  check(): void;
}

/** For `is_external_url`: whether a host resolves only to private or loopback addresses. */
export interface HostResolver {
  isExternalHost(host: string): Result<boolean>;
}

/**
 * One public-key signature check: cosign signatures in verifyImages, signed manifests in
 * validate.manifests. The engine decodes payloads and decides what was signed; the platform does
 * the cryptography (node:crypto), so the engine stays pure.
 */
export interface SignatureCheck {
  /** A PEM public key (SPKI, "PUBLIC KEY"; ECDSA, RSA or Ed25519), or a PEM certificate whose key is used. */
  readonly publicKey: string;
  /** The exact bytes that were signed. */
  readonly data: Uint8Array;
  /** The raw signature bytes (already base64-decoded; ECDSA in ASN.1 DER, as cosign writes it). */
  readonly signature: Uint8Array;
  /** The digest for ECDSA and RSA keys (Kyverno's `signatureAlgorithm`, default sha256); ignored for Ed25519. */
  readonly hash?: "sha224" | "sha256" | "sha384" | "sha512";
}

/**
 * A certificate attestor's chain check (cosign's `ValidateAndUnpackCertWithChain`): the leaf must
 * chain, through the chain's other certificates (intermediates, each a CA), to the chain's last
 * certificate (the root), every signature on the way holding and every certificate valid at the
 * leaf's notBefore (cosign verifies the chain at signing time); the leaf must allow code signing
 * (extended key usage, when it names any) and, with no transparency log to vouch for the signing
 * time, be valid at `nowMillis`.
 */
export interface CertificateCheck {
  /** The leaf certificate (PEM). */
  readonly certificate: string;
  /** PEM certificates, intermediates first, the root last. */
  readonly chain: string;
  readonly nowMillis: number;
}

export interface SignatureVerifier {
  /** ok(true) when the signature holds, ok(false) when it does not, an error when the key cannot be read. */
  verify(check: SignatureCheck): Result<boolean>;
  /**
   * ok(undefined) when the certificate holds, ok(why not) in Go's x509 words when it does not, an
   * error when a PEM cannot be read. Absent: this verifier checks no chains (an error says so).
   */
  verifyChain?(check: CertificateCheck): Result<string | undefined>;
}

export interface EnginePorts {
  readonly clock: Clock;
  readonly random: Random;
  readonly hasher: Hasher;
  readonly context: ContextSources;
  readonly hosts: HostResolver;
  /** Absent: this engine checks no signatures, and a rule that needs one is an error saying so. */
  readonly signatures?: SignatureVerifier;
  /**
   * The types of the built-in kinds a MutatingPolicy's ApplyConfiguration is converted with before
   * it merges, as Kyverno's CLI converts it (mutate/typed: undeclared fields, wrong scalars and
   * atomic lists or maps set are errors). Absent: not converted (an engine serving a cluster, whose
   * own schema may differ).
   */
  readonly typedKinds?: TypedKinds;
}
