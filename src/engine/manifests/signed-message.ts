/**
 * The `<domain>/message` annotation of a signed manifest, as k8s-manifest-sigstore writes it: base64
 * of a gzip of the signed blob. The blob (what the signature covers) is a tar.gz of the signed YAML
 * files; a blob that is not gzip is read as YAML itself. Only `.yaml`/`.yml` files whose first
 * document has a `kind` count, and every document of those files is a candidate manifest.
 */
import { utf8DecodeLossy, utf8Encode } from "../jmespath/functions/kyverno/go-text.js";
import { gunzipCapped } from "../compress/gunzip-capped.js";
import { isObject, type JsonObject } from "../api/json.js";
import { base64Decode } from "../jmespath/functions/kyverno/base64.js";
import { parseGoYamlDocuments } from "../jmespath/functions/kyverno/go-yaml.js";
import { readTar } from "./tar.js";

export type SignedMessage =
  | { readonly kind: "ok"; readonly signed: Uint8Array; readonly manifests: readonly JsonObject[] }
  /** A failure k8s-manifest-sigstore treats as "message not found" (Kyverno: fail). */
  | { readonly kind: "not-found"; readonly message: string }
  | { readonly kind: "error"; readonly message: string };

const isGzip = (b: Uint8Array): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/**
 * At most this many bytes come out of one gunzip: a message annotation is at most 256 KiB, and a
 * gzip "bomb" (twice gzipped here) must not take the process's memory.
 */
const MAX_INFLATED_BYTES = 8 * 1024 * 1024;

const gunzip = (b: Uint8Array): Uint8Array | string => gunzipCapped(b, MAX_INFLATED_BYTES);

/** Decodes the annotation; `undefined` when there is no message annotation. */
export function readSignedMessage(annotation: string | undefined): SignedMessage {
  if (annotation === undefined) return { kind: "not-found", message: "message not found" };
  const gz = base64Decode(utf8Encode(annotation));
  if (typeof gz === "string")
    return { kind: "error", message: `failed to decode base64 message in the annotation: ${gz}` };
  const blob = gunzip(gz);
  if (typeof blob === "string")
    return { kind: "error", message: `failed to read YAMLs in the gzipped message: ${blob}` };
  const texts = yamlTexts(blob);
  if (typeof texts === "string")
    return { kind: "error", message: `failed to read YAMLs in the gzipped message: ${texts}` };
  const manifests: JsonObject[] = [];
  for (const text of texts) {
    const docs = parseGoYamlDocuments(text);
    if (!docs.ok) continue;
    for (const d of docs.value) if (isObject(d)) manifests.push(d);
  }
  return { kind: "ok", signed: blob, manifests };
}

/** The YAML texts of the blob: the files of its tar.gz, or the blob itself. */
function yamlTexts(blob: Uint8Array): string[] | string {
  if (!isGzip(blob)) return [utf8DecodeLossy(blob)];
  const tar = gunzip(blob);
  if (typeof tar === "string") return `gzip.NewReader() failed while decompressing tar gz: ${tar}`;
  const files = readTar(tar);
  if (!files.ok) return `tarReader.Next() failed while decompressing tar gz: ${files.error}`;
  const out: string[] = [];
  for (const f of files.files) {
    if (f.name.includes("..") || !/\.ya?ml$/.test(f.name)) continue;
    const text = utf8DecodeLossy(f.data);
    const first = parseGoYamlDocuments(text, undefined, 1);
    if (first.ok && isObject(first.value[0] ?? null) && typeof (first.value[0] as JsonObject)["kind"] === "string")
      out.push(text);
  }
  return out;
}
