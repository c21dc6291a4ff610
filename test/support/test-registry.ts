/**
 * An OCI registry the tests serve on loopback (plain HTTP, as go-containerregistry talks to a
 * loopback registry): the Distribution API's read paths for a few in-memory images.
 * - `GET /v2/<repo>/manifests/<tag|digest>` (with Content-Type and Docker-Content-Digest),
 *   `GET /v2/<repo>/blobs/<digest>`; unknown names answer 404 with a registry error code.
 * - With `users`, every /v2/ request needs a bearer token: a 401 carries
 *   `WWW-Authenticate: Bearer realm=".../token",service="test-registry"`, and `/token` gives one for
 *   Basic credentials of a known user (401 otherwise).
 * - With `blobRedirect`, blobs answer 307 to a second listener (another host:port), as registries
 *   send blobs to storage; it records the Authorization header it is sent.
 * - `sign` adds cosign signatures to an image: the manifest tagged `sha256-<hex>.sig` (in the
 *   image's repository or another), whose layers are the signed payloads and whose layer
 *   annotations hold the signatures, as `cosign sign` pushes them; `attest` adds attestations
 *   (`sha256-<hex>.att`, one DSSE envelope per layer), as `cosign attest` pushes them.
 * Every request is recorded (path and Authorization), for tests of what was sent where.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestImage {
  /** The config blob's JSON (`config`, `created`, `architecture`, …). */
  readonly config: Record<string, unknown>;
  /** Layer sizes in the manifest (no layer blobs are served). */
  readonly layerSizes?: readonly number[];
  /** Serve the tag as an index with linux/arm64 and linux/amd64 children (the config's architecture is set per child). */
  readonly index?: boolean;
}

export interface SeenRequest {
  readonly host: string;
  readonly path: string;
  readonly authorization: string | undefined;
}

export interface TestRegistryOptions {
  /** user → password; set, the registry requires bearer tokens. */
  readonly users?: Readonly<Record<string, string>>;
  /** Blobs redirect to a second listener; a string names the host to redirect to (default 127.0.0.1). */
  readonly blobRedirect?: boolean | string;
}

const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const OCI_INDEX = "application/vnd.oci.image.index.v1+json";

export class TestRegistry {
  readonly seen: SeenRequest[] = [];
  private readonly manifests = new Map<string, { readonly body: Buffer; readonly type: string }>();
  private readonly tags = new Map<string, string>();
  private readonly blobs = new Map<string, Buffer>();
  private readonly tokens = new Set<string>();
  private server: Server | undefined;
  private storage: Server | undefined;
  private port = 0;
  private storagePort = 0;

  constructor(private readonly options: TestRegistryOptions = {}) {}

  /** `127.0.0.1:PORT`, the registry part of an image reference. */
  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = await listen((req, res) => this.serve(req, res));
    this.port = (this.server.address() as AddressInfo).port;
    if (this.options.blobRedirect !== undefined && this.options.blobRedirect !== false) {
      this.storage = await listen((req, res) => this.serveStorage(req, res));
      this.storagePort = (this.storage.address() as AddressInfo).port;
    }
    return this;
  }

  async stop(): Promise<void> {
    for (const s of [this.server, this.storage])
      if (s !== undefined) await new Promise<void>((r) => s.close(() => r()));
  }

  /** Adds an image under `repo:tag`; returns the digest the tag resolves to (the index's, for an index). */
  add(repo: string, tag: string, image: TestImage): string {
    if (image.index !== true) {
      const digest = this.addManifest(repo, image.config, image.layerSizes ?? [1024]);
      this.tags.set(`${repo}:${tag}`, digest);
      return digest;
    }
    const children = ["arm64", "amd64"].map((architecture) => ({
      mediaType: OCI_MANIFEST,
      digest: this.addManifest(repo, { ...image.config, architecture, os: "linux" }, image.layerSizes ?? [1024]),
      size: 0,
      platform: { architecture, os: "linux" },
    }));
    const index = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests: children }));
    const digest = sha256(index);
    this.manifests.set(`${repo}@${digest}`, { body: index, type: OCI_INDEX });
    this.tags.set(`${repo}:${tag}`, digest);
    return digest;
  }

  /**
   * Pushes cosign signatures for the image `digest` of `repo` (into `signatureRepo`, `repo` by
   * default): one layer per signature, its blob the payload, its annotation the signature.
   */
  sign(
    repo: string,
    digest: string,
    signatures: readonly { readonly payload: Buffer; readonly signature: string }[],
    signatureRepo: string = repo,
  ): void {
    const layers = signatures.map((sig) => ({
      body: sig.payload,
      mediaType: "application/vnd.dev.cosign.simplesigning.v1+json",
      annotations: { "dev.cosignproject.cosign/signature": sig.signature },
    }));
    this.pushArtifact(signatureRepo, `${digest.replace(":", "-")}.sig`, layers);
  }

  /**
   * Pushes cosign attestations for the image `digest` of `repo` (into `attestationRepo`, `repo` by
   * default): the manifest tagged `sha256-<hex>.att`, one layer per DSSE envelope (its blob the
   * envelope's JSON), as `cosign attest` pushes them.
   */
  attest(repo: string, digest: string, envelopes: readonly Buffer[], attestationRepo: string = repo): void {
    const layers = envelopes.map((body) => ({
      body,
      mediaType: "application/vnd.dsse.envelope.v1+json",
      annotations: { "dev.cosignproject.cosign/signature": "" },
    }));
    this.pushArtifact(attestationRepo, `${digest.replace(":", "-")}.att`, layers);
  }

  private pushArtifact(
    repo: string,
    tag: string,
    layers: readonly {
      readonly body: Buffer;
      readonly mediaType: string;
      readonly annotations: Record<string, string>;
    }[],
  ): void {
    const descriptors = layers.map((l) => {
      const layerDigest = sha256(l.body);
      this.blobs.set(layerDigest, l.body);
      return { mediaType: l.mediaType, digest: layerDigest, size: l.body.length, annotations: l.annotations };
    });
    const configBody = Buffer.from("{}");
    this.blobs.set(sha256(configBody), configBody);
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        config: {
          mediaType: "application/vnd.oci.image.config.v1+json",
          digest: sha256(configBody),
          size: configBody.length,
        },
        layers: descriptors,
      }),
    );
    const manifestDigest = sha256(manifest);
    this.manifests.set(`${repo}@${manifestDigest}`, { body: manifest, type: OCI_MANIFEST });
    this.tags.set(`${repo}:${tag}`, manifestDigest);
  }

  private addManifest(repo: string, config: Record<string, unknown>, layerSizes: readonly number[]): string {
    const configBody = Buffer.from(JSON.stringify(config));
    const configDigest = sha256(configBody);
    this.blobs.set(configDigest, configBody);
    const layers = layerSizes.map((size, i) => ({
      mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
      digest: sha256(Buffer.from(`${repo}-${i}-${size}`)),
      size,
    }));
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        config: {
          mediaType: "application/vnd.oci.image.config.v1+json",
          digest: configDigest,
          size: configBody.length,
        },
        layers,
      }),
    );
    const digest = sha256(manifest);
    this.manifests.set(`${repo}@${digest}`, { body: manifest, type: OCI_MANIFEST });
    return digest;
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", `http://${this.host}`);
    this.seen.push({ host: this.host, path: url.pathname, authorization: req.headers.authorization });
    if (url.pathname === "/token") return this.token(req, res);
    if (
      this.options.users !== undefined &&
      !this.tokens.has((req.headers.authorization ?? "").replace(/^Bearer /, ""))
    ) {
      res.writeHead(401, {
        "www-authenticate": `Bearer realm="http://${this.host}/token",service="test-registry"`,
        "content-type": "application/json",
      });
      return void res.end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] }));
    }
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
    if (m === null) return notFound(res, "NAME_UNKNOWN");
    const [, repo = "", what, ref = ""] = m;
    if (what === "blobs") {
      const blob = this.blobs.get(ref);
      if (blob === undefined) return notFound(res, "BLOB_UNKNOWN");
      if (this.options.blobRedirect !== undefined && this.options.blobRedirect !== false) {
        const host = typeof this.options.blobRedirect === "string" ? this.options.blobRedirect : "127.0.0.1";
        res.writeHead(307, { location: `http://${host}:${this.storagePort}/storage/${ref}` });
        return void res.end();
      }
      res.writeHead(200, { "content-type": "application/octet-stream", "docker-content-digest": ref });
      return void res.end(blob);
    }
    const digest = ref.startsWith("sha256:") ? ref : this.tags.get(`${repo}:${ref}`);
    const manifest = digest === undefined ? undefined : this.manifests.get(`${repo}@${digest}`);
    if (manifest === undefined || digest === undefined) return notFound(res, "MANIFEST_UNKNOWN");
    res.writeHead(200, { "content-type": manifest.type, "docker-content-digest": digest });
    res.end(manifest.body);
  }

  private token(req: IncomingMessage, res: ServerResponse): void {
    const basic = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString("utf8");
    const [user = "", password] = basic.split(":");
    if (this.options.users?.[user] === undefined || this.options.users[user] !== password) {
      res.writeHead(401, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED" }] }));
    }
    const token = randomBytes(12).toString("hex");
    this.tokens.add(token);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ token, expires_in: 300 }));
  }

  private serveStorage(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? "/", "http://storage").pathname;
    this.seen.push({ host: `127.0.0.1:${this.storagePort}`, path, authorization: req.headers.authorization });
    const blob = this.blobs.get(path.replace(/^\/storage\//, ""));
    if (blob === undefined) return notFound(res, "BLOB_UNKNOWN");
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.end(blob);
  }
}

function sha256(b: Buffer): string {
  return `sha256:${createHash("sha256").update(b).digest("hex")}`;
}

function notFound(res: ServerResponse, code: string): void {
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ errors: [{ code, message: "secret upstream text" }] }));
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}
