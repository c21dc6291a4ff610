/**
 * A small OCI distribution client (docs/adr/0015): the read paths Kyverno's image data needs.
 * - The reference's manifest (`GET /v2/<repo>/manifests/<tag|digest>`, every manifest media type
 *   accepted); its sha256 is the digest the reference resolves to (checked against a digest reference).
 * - An index (OCI index, Docker manifest list) resolves to one image manifest: the only child that
 *   describes an image, else the `linux/amd64` child, as Kyverno (go-containerregistry) picks.
 * - The config blob (`GET /v2/<repo>/blobs/<digest>`), checked against its digest.
 * - Cosign signatures (`fetchSignatures`): the `sha256-<hex>.sig` manifest and its layer blobs.
 * - Auth: a 401 with `WWW-Authenticate: Bearer realm=…` gets a pull token from the realm (with the
 *   registry's credentials as Basic auth when the keychain has some) and the request is sent again;
 *   `Basic` sends the credentials. Tokens are kept until they expire.
 * - Redirects (blob storage) are followed up to 5 hops, each through the transport (so serve's
 *   egress filter checks every hop); the Authorization header never follows to another host.
 * - Answers are kept TTL_MS (per reference and credentials); failures are not kept.
 * Errors carry the status and the registry's error codes, never a response body.
 */
import { createHash } from "node:crypto";
import { err, type ImageSignatures, isObject, ok, type JsonValue, type Result, textOf } from "../../engine/index.js";
import type { HttpAnswer, Transport } from "./http-transport.js";
import { Keychain, type RegistryCredential } from "./keychain.js";
import { parseImageReference, registryScheme, type ImageReference } from "./reference.js";

export interface FetchedImage {
  readonly ref: ImageReference;
  /** The digest the reference resolves to: of the index when the reference names one. */
  readonly digest: string;
  /** The image manifest (the platform's, for an index). */
  readonly manifest: JsonValue;
  readonly config: JsonValue;
  /** The index or manifest list, when the reference names one. */
  readonly index?: JsonValue;
}

interface RegistryClientOptions {
  readonly transport: Transport;
  /** How long a fetched image is kept (default 60 s). */
  readonly ttlMs?: number;
  readonly now?: () => number;
  /** Plain HTTP for these registries besides the loopback and private ones (`allowInsecureRegistry`). */
  readonly insecure?: (registry: string) => boolean;
}

const INDEX_TYPES = new Set([
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
]);
const IMAGE_TYPES = new Set([
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
]);
const ACCEPT = [...IMAGE_TYPES, ...INDEX_TYPES].join(", ");
const MAX_CACHED = 256;
/** Signature layers read per image at most (cosign appends one per signing). */
const MAX_SIGNATURES = 16;
const SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature";
const MAX_HOPS = 5;

export class RegistryClient {
  private readonly cache = new Map<string, { readonly until: number; readonly image: FetchedImage }>();
  private readonly tokens = new Map<string, { readonly until: number; readonly header: string }>();
  private readonly now: () => number;

  constructor(private readonly options: RegistryClientOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The image a reference names, with its manifest and config. */
  async fetchImage(
    reference: string,
    keychain: Keychain = Keychain.empty,
    signal?: AbortSignal,
  ): Promise<Result<FetchedImage>> {
    const parsed = parseImageReference(reference);
    if (!parsed.ok) return parsed;
    const ref = parsed.value;
    const cred = keychain.for(ref.registry);
    const key = `${reference}\0${credentialId(cred)}`;
    const kept = this.cache.get(key);
    if (kept !== undefined && kept.until > this.now()) return ok(kept.image);
    const fetched = await this.fetchUncached(ref, cred, signal);
    if (fetched.ok) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, { until: this.now() + (this.options.ttlMs ?? 60_000), image: fetched.value });
    }
    return fetched;
  }

  private async fetchUncached(
    ref: ImageReference,
    cred: RegistryCredential | undefined,
    signal?: AbortSignal,
  ): Promise<Result<FetchedImage>> {
    const top = await this.getJson(ref, cred, `manifests/${ref.identifier}`, ACCEPT, signal);
    if (!top.ok) return top;
    if (ref.digest !== undefined && top.value.digest !== ref.digest)
      return err(
        "registry",
        `the manifest of ${ref.image} has digest ${top.value.digest}, not the one the reference names`,
      );
    const type = mediaTypeOf(top.value);
    let manifest = top.value.json;
    let index: JsonValue | undefined;
    if (INDEX_TYPES.has(type)) {
      index = top.value.json;
      const child = pickImage(index);
      if (!child.ok) return err("registry", `${ref.image}: ${child.error.message}`);
      const m = await this.getJson(ref, cred, `manifests/${child.value}`, ACCEPT, signal);
      if (!m.ok) return m;
      if (m.value.digest !== child.value)
        return err("registry", `the platform manifest of ${ref.image} does not match its digest ${child.value}`);
      if (!IMAGE_TYPES.has(mediaTypeOf(m.value)))
        return err(
          "registry",
          `${ref.image}: the index names a manifest of media type ${JSON.stringify(mediaTypeOf(m.value))}, not an image`,
        );
      manifest = m.value.json;
    } else if (!IMAGE_TYPES.has(type)) {
      return err(
        "registry",
        `${ref.image}: unsupported manifest media type ${JSON.stringify(type)} (Docker schema 1 and other artifacts are not images)`,
      );
    }
    const configDigest = isObject(manifest) && isObject(manifest["config"]) ? manifest["config"]["digest"] : undefined;
    if (typeof configDigest !== "string" || !/^sha256:[a-f0-9]{64}$/.test(configDigest))
      return err("registry", `${ref.image}: the image manifest names no sha256 config digest`);
    const config = await this.getJson(ref, cred, `blobs/${configDigest}`, "application/json, */*", signal);
    if (!config.ok) return config;
    if (config.value.digest !== configDigest)
      return err("registry", `the config blob of ${ref.image} does not match its digest ${configDigest}`);
    return ok({
      ref,
      digest: top.value.digest,
      manifest,
      config: config.value.json,
      ...(index !== undefined ? { index } : {}),
    });
  }

  /** GETs `/v2/<repo>/<path>` with auth and redirects; the JSON body, its sha256 and content type. */
  private async getJson(
    ref: ImageReference,
    cred: RegistryCredential | undefined,
    path: string,
    accept: string,
    signal?: AbortSignal,
  ): Promise<Result<{ json: JsonValue; digest: string; contentType: string }>> {
    const got = await this.getBody(ref, cred, path, accept, signal);
    if (!got.ok) return got;
    try {
      return ok({
        json: JSON.parse(got.value.body.toString("utf8")) as JsonValue,
        digest: got.value.digest,
        contentType: got.value.contentType,
      });
    } catch {
      return err("registry", `GET ${shown(got.value.url)}: the answer is not JSON`);
    }
  }

  /**
   * The cosign signatures of the image a reference names (`ImageSignatures` in the engine's ports):
   * the digest it resolves to, then the manifest tagged `sha256-<hex>.sig` in `repository` (the
   * image's own by default), whose layers are the signed payloads and whose layer annotations hold
   * the signatures. No such manifest: no signatures. With `suffix` "att", cosign's attestations
   * (`sha256-<hex>.att`), whose layers are DSSE envelopes.
   */
  async fetchSignatures(
    reference: string,
    repository: string | undefined,
    keychain: Keychain = Keychain.empty,
    signal?: AbortSignal,
    suffix: "sig" | "att" = "sig",
  ): Promise<Result<ImageSignatures>> {
    const parsed = parseImageReference(reference);
    if (!parsed.ok) return parsed;
    const ref = parsed.value;
    const top = await this.getBody(ref, keychain.for(ref.registry), `manifests/${ref.identifier}`, ACCEPT, signal);
    if (!top.ok) return top;
    if (ref.digest !== undefined && top.value.digest !== ref.digest)
      return err(
        "registry",
        `the manifest of ${ref.image} has digest ${top.value.digest}, not the one the reference names`,
      );
    const digest = top.value.digest;
    const sigTag = `${digest.replace(":", "-")}.${suffix}`;
    const sigRef = parseImageReference(
      `${repository !== undefined && repository !== "" ? repository : ref.name}:${sigTag}`,
    );
    if (!sigRef.ok)
      return err("registry", `signature repository ${JSON.stringify(repository)}: ${sigRef.error.message}`);
    const sigCred = keychain.for(sigRef.value.registry);
    const manifest = await this.getBody(
      sigRef.value,
      sigCred,
      `manifests/${sigTag}`,
      [...IMAGE_TYPES].join(", "),
      signal,
    );
    if (!manifest.ok)
      return /unexpected status code 404\b/.test(manifest.error.message) ? ok({ digest, signatures: [] }) : manifest;
    let json: JsonValue;
    try {
      json = JSON.parse(manifest.value.body.toString("utf8")) as JsonValue;
    } catch {
      return err("registry", `${sigRef.value.image}: the signature manifest is not JSON`);
    }
    const layers =
      isObject(json) && Array.isArray(json["layers"]) ? json["layers"].filter(isObject).slice(0, MAX_SIGNATURES) : [];
    const signatures: { payload: string; signature: string }[] = [];
    for (const layer of layers) {
      const layerDigest = layer["digest"];
      if (typeof layerDigest !== "string" || !/^sha256:[a-f0-9]{64}$/.test(layerDigest)) continue;
      const blob = await this.getBody(sigRef.value, sigCred, `blobs/${layerDigest}`, "*/*", signal);
      if (!blob.ok) return blob;
      if (blob.value.digest !== layerDigest)
        return err("registry", `a signature layer of ${sigRef.value.image} does not match its digest ${layerDigest}`);
      const annotations = layer["annotations"];
      const signature =
        isObject(annotations) && typeof annotations[SIGNATURE_ANNOTATION] === "string"
          ? annotations[SIGNATURE_ANNOTATION]
          : "";
      signatures.push({ payload: blob.value.body.toString("base64"), signature });
    }
    return ok({ digest, signatures });
  }

  /** GETs `/v2/<repo>/<path>` with auth and redirects; the body as sent, its sha256 and content type. */
  private async getBody(
    ref: ImageReference,
    cred: RegistryCredential | undefined,
    path: string,
    accept: string,
    signal?: AbortSignal,
  ): Promise<Result<{ body: Buffer; digest: string; contentType: string; url: string }>> {
    const scheme = this.options.insecure?.(ref.registry) === true ? "http" : registryScheme(ref.registry);
    const url = `${scheme}://${ref.registry}/v2/${ref.repository}/${path}`;
    const tokenKey = `${ref.registry}\0${ref.repository}\0${credentialId(cred)}`;
    const send = async (auth: string | undefined): Promise<Result<HttpAnswer>> =>
      this.follow(url, { accept, ...(auth !== undefined ? { authorization: auth } : {}) }, signal);
    const kept = this.tokens.get(tokenKey);
    let answer = await send(
      kept !== undefined && kept.until > this.now()
        ? kept.header
        : cred?.registryToken !== undefined
          ? `Bearer ${cred.registryToken}`
          : undefined,
    );
    if (!answer.ok) return answer;
    if (answer.value.status === 401) {
      const auth = await this.authorize(ref, cred, answer.value.headers["www-authenticate"] ?? "", signal);
      if (!auth.ok) return auth;
      this.tokens.set(tokenKey, { until: this.now() + auth.value.ttlMs, header: auth.value.header });
      answer = await send(auth.value.header);
      if (!answer.ok) return answer;
    }
    const a = answer.value;
    if (a.status < 200 || a.status > 299)
      return err("registry", `GET ${shown(url)}: unexpected status code ${a.status}${registryCodes(a.body)}`);
    const digest = `sha256:${createHash("sha256").update(a.body).digest("hex")}`;
    return ok({
      body: a.body,
      digest,
      contentType: (a.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "",
      url,
    });
  }

  /** One request, following redirects; Authorization goes only to the first URL's host. */
  private async follow(
    start: string,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Result<HttpAnswer>> {
    let url = start;
    const origin = new URL(start).host;
    for (let hop = 0; ; hop++) {
      const sent = new URL(url).host === origin ? headers : withoutAuthorization(headers);
      const answer = await this.options.transport({ method: "GET", url, headers: sent }, signal);
      if (!answer.ok || answer.value.status < 300 || answer.value.status > 399) return answer;
      const location = answer.value.headers["location"];
      if (location === undefined)
        return err("registry", `GET ${shown(url)}: redirect ${answer.value.status} without a Location`);
      if (hop >= MAX_HOPS) return err("registry", `GET ${shown(start)}: more than ${MAX_HOPS} redirects`);
      url = new URL(location, url).toString();
    }
  }

  /** The Authorization header a 401's challenge asks for, and how long it may be reused. */
  private async authorize(
    ref: ImageReference,
    cred: RegistryCredential | undefined,
    challenge: string,
    signal?: AbortSignal,
  ): Promise<Result<{ header: string; ttlMs: number }>> {
    const basic =
      cred?.username !== undefined || cred?.password !== undefined
        ? `Basic ${Buffer.from(`${cred.username ?? ""}:${cred.password ?? ""}`).toString("base64")}`
        : undefined;
    const scheme = challenge.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
    if (scheme === "basic") {
      if (basic === undefined)
        return err("registry", `${ref.registry} asks for credentials (Basic) and none are given for it: UNAUTHORIZED`);
      return ok({ header: basic, ttlMs: 3_600_000 });
    }
    if (scheme !== "bearer")
      return err(
        "registry",
        `${ref.registry} answered 401 with an authentication scheme Bylaw does not speak (${JSON.stringify(scheme)})`,
      );
    const params = challengeParams(challenge);
    const realm = params.get("realm");
    if (realm === undefined) return err("registry", `${ref.registry}: the Bearer challenge names no realm`);
    let tokenUrl: URL;
    try {
      tokenUrl = new URL(realm);
    } catch {
      return err("registry", `${ref.registry}: the Bearer realm is not a URL`);
    }
    const service = params.get("service");
    if (service !== undefined) tokenUrl.searchParams.set("service", service);
    tokenUrl.searchParams.set("scope", `repository:${ref.repository}:pull`);
    const answer = await this.follow(tokenUrl.toString(), basic !== undefined ? { authorization: basic } : {}, signal);
    if (!answer.ok) return answer;
    if (answer.value.status !== 200)
      return err(
        "registry",
        `the token service of ${ref.registry} (${shown(tokenUrl.toString())}) answered ${answer.value.status}${answer.value.status === 401 ? ": the credentials given for it were refused, or none were given (UNAUTHORIZED)" : ""}`,
      );
    let body: JsonValue;
    try {
      body = JSON.parse(answer.value.body.toString("utf8")) as JsonValue;
    } catch {
      return err("registry", `the token service of ${ref.registry} did not answer JSON`);
    }
    const token = isObject(body) ? (body["token"] ?? body["access_token"]) : undefined;
    if (typeof token !== "string" || token === "")
      return err("registry", `the token service of ${ref.registry} gave no token`);
    const expires = isObject(body) && typeof body["expires_in"] === "number" ? body["expires_in"] : 60;
    return ok({ header: `Bearer ${token}`, ttlMs: Math.max(0, expires - 10) * 1000 });
  }
}

/** The child of an index that is the image: the only one describing an image, else linux/amd64. */
function pickImage(index: JsonValue): Result<string> {
  const manifests = isObject(index) && Array.isArray(index["manifests"]) ? index["manifests"].filter(isObject) : [];
  const images = manifests.filter((m) => {
    if (m["artifactType"] !== undefined || !IMAGE_TYPES.has(textOf(m["mediaType"] ?? ""))) return false;
    const p = m["platform"];
    return !isObject(p) || (p["os"] !== "unknown" && p["architecture"] !== "unknown");
  });
  const linuxAmd64 = images.find(
    (m) => isObject(m["platform"]) && m["platform"]["os"] === "linux" && m["platform"]["architecture"] === "amd64",
  );
  const chosen = images.length === 1 ? images[0] : linuxAmd64;
  const digest = chosen?.["digest"];
  if (typeof digest !== "string" || !/^sha256:[a-f0-9]{64}$/.test(digest))
    return err("registry", "no child with platform linux/amd64 in index");
  return ok(digest);
}

function mediaTypeOf(got: { json: JsonValue; contentType: string }): string {
  const declared = isObject(got.json) && typeof got.json["mediaType"] === "string" ? got.json["mediaType"] : undefined;
  return declared ?? got.contentType;
}

function challengeParams(challenge: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of challenge.matchAll(/([a-zA-Z_]+)="([^"]*)"/g)) out.set((m[1] ?? "").toLowerCase(), m[2] ?? "");
  return out;
}

/** The registry's error codes (`MANIFEST_UNKNOWN`), never its free text. */
function registryCodes(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as JsonValue;
    const errors = isObject(parsed) && Array.isArray(parsed["errors"]) ? parsed["errors"] : [];
    const codes = errors
      .map((e) => (isObject(e) ? e["code"] : undefined))
      .filter((c): c is string => typeof c === "string" && /^[A-Z_]{1,40}$/.test(c));
    return codes.length > 0 ? `: ${codes.join(", ")}` : "";
  } catch {
    return "";
  }
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  const rest: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k !== "authorization") rest[k] = v;
  return rest;
}

function credentialId(cred: RegistryCredential | undefined): string {
  return cred === undefined ? "" : createHash("sha256").update(JSON.stringify(cred)).digest("hex").slice(0, 16);
}

function shown(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}
