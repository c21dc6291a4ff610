/**
 * Signs manifests the way k8s-manifest-sigstore's `kubectl sigstore sign` does, for tests: the YAML
 * goes into a tar.gz (the signed blob), the `<domain>/message` annotation is base64 of the blob
 * gzipped again, and `<domain>/signature` (then `signature_1`, …) is base64 of an ECDSA P-256
 * SHA-256 signature over the blob, one per private key.
 */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { gzipSync } from "node:zlib";
import { stringify } from "yaml";
import type { JsonObject } from "../../src/engine/index.js";

export interface TestKey {
  readonly publicKey: string;
  readonly privateKey: KeyObject;
}

/** A fresh key pair (ECDSA P-256 unless asked), the public half as PEM (what a policy writes in `publicKeys`). */
export function testKey(type: "ec" | "rsa" | "ed25519" = "ec"): TestKey {
  const { publicKey, privateKey } =
    type === "rsa"
      ? generateKeyPairSync("rsa", { modulusLength: 2048 })
      : type === "ed25519"
        ? generateKeyPairSync("ed25519")
        : generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(), privateKey };
}

/** A ustar archive holding one regular file. */
export function tarOf(name: string, data: Uint8Array): Uint8Array {
  const header = new Uint8Array(512);
  const put = (text: string, at: number): void => header.set(new TextEncoder().encode(text), at);
  put(name, 0);
  put("0000644\0", 100);
  put("0000000\0", 108);
  put("0000000\0", 116);
  put(`${data.length.toString(8).padStart(11, "0")}\0`, 124);
  put("00000000000\0", 136);
  put("        ", 148);
  put("0", 156);
  put("ustar\0", 257);
  put("00", 263);
  const sum = header.reduce((a, b) => a + b, 0);
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  const body = new Uint8Array(Math.ceil(data.length / 512) * 512);
  body.set(data);
  const out = new Uint8Array(512 + body.length + 1024);
  out.set(header);
  out.set(body, 512);
  return out;
}

export interface SignOptions {
  readonly domain?: string;
  /** The blob to sign instead of a tar.gz of the manifest (raw YAML, a broken archive, …). */
  readonly blob?: Uint8Array;
}

/** The signature annotations for `manifest` signed by `keys`. */
export function signatureAnnotations(
  manifest: JsonObject,
  keys: readonly TestKey[],
  options: SignOptions = {},
): Record<string, string> {
  const domain = options.domain ?? "cosign.sigstore.dev";
  const blob = options.blob ?? gzipSync(tarOf("manifest.yaml", new TextEncoder().encode(stringify(manifest))));
  const out: Record<string, string> = { [`${domain}/message`]: gzipSync(blob).toString("base64") };
  keys.forEach((k, i) => {
    out[`${domain}/signature${i === 0 ? "" : `_${i}`}`] = sign(
      k.privateKey.asymmetricKeyType === "ed25519" ? null : "sha256",
      blob,
      k.privateKey,
    ).toString("base64");
  });
  return out;
}

/** `manifest` as deployed after signing: the signature annotations added to its own. */
export function signed(manifest: JsonObject, keys: readonly TestKey[], options: SignOptions = {}): JsonObject {
  const meta = (manifest["metadata"] ?? {}) as JsonObject;
  const annotations = {
    ...((meta["annotations"] ?? {}) as Record<string, string>),
    ...signatureAnnotations(manifest, keys, options),
  };
  return { ...manifest, metadata: { ...meta, annotations } };
}

/** A ClusterPolicy with one validate.manifests rule on Deployments. */
export function manifestsPolicy(manifests: JsonObject, kinds: readonly string[] = ["Deployment"]): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "verify-manifests" },
    spec: {
      validationFailureAction: "Enforce",
      background: false,
      rules: [{ name: "verify", match: { any: [{ resources: { kinds: [...kinds] } }] }, validate: { manifests } }],
    },
  };
}

/** `attestors` with one set of the given public keys, one entry each. */
export function keyAttestors(keys: readonly TestKey[], count?: number): JsonObject[] {
  return [
    { ...(count !== undefined ? { count } : {}), entries: keys.map((k) => ({ keys: { publicKeys: k.publicKey } })) },
  ];
}

export function deploymentManifest(replicas = 1): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } },
    },
  };
}
