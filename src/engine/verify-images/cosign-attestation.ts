/**
 * Cosign attestations checked with one key (cosign's `VerifyImageAttestations` with a static key,
 * as Kyverno's `FetchAttestations` calls it): the layers of `<repository>:sha256-<hex>.att` come
 * from the registry port (form "attestations"), each a DSSE envelope. An envelope counts when its
 * `payloadType` is in-toto's, one of its signatures holds under the key over DSSE's PAE encoding
 * of the payload, and the in-toto statement's `subject[].digest.sha256` names the image's digest
 * (cosign's `IntotoSubjectClaimVerifier`). The answer is the statements of the envelopes that
 * count. Messages, word for word:
 * - "no matching attestations: <why each failed, joined by "\n ">": sigstore/cosign `pkg/cosign/verify.go`
 *   `VerifyImageAttestation` (ErrNoMatchingAttestations);
 * - "invalid payloadType <type> on envelope. Expected application/vnd.in-toto+json": the same file,
 *   `verifyOCIAttestation`;
 * - "no signature found", "unable to base64 decode payload (is payload in the right format?)",
 *   "accepted signatures do not match threshold, Found: 0, Expected 1": secure-systems-lab/go-securesystemslib
 *   `dsse/verify.go` `EnvelopeVerifier.Verify` (ErrNoSignature, `b64Decode`), which verifyOCIAttestation calls;
 * - "no matching subject digest found": cosign `pkg/cosign/verifiers.go` `IntotoSubjectClaimVerifier`;
 * - "no signature matched the required annotations": Kyverno's `checkAnnotations`
 *   (`pkg/image/verifiers/cpol/cosign`), which reads each verified envelope as a simple-signing payload:
 *   an envelope carries no `optional`, so attestations fail whenever annotations are required.
 * The digest is the registry's; Kyverno's `decodeStatements` reads none from attestations (it looks
 * for a simple-signing digest in the envelope), so messages name the image as the rule knew it.
 */
import { isObject, type JsonObject, type JsonValue, textOf } from "../api/json.js";
import { base64Decode } from "../jmespath/functions/kyverno/base64.js";
import { utf8DecodeLossy, utf8Encode } from "../jmespath/functions/kyverno/go-text.js";
import type { EntryOutcome } from "./attestors.js";
import { fetchLayers, NO_ANNOTATED_SIGNATURE, type KeyCheck } from "./cosign-signature.js";

const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

type AttestationsOutcome =
  | { readonly ok: true; readonly digest: string; readonly statements: readonly JsonObject[] }
  | Extract<EntryOutcome, { ok: false }>;

export function fetchAttestations(check: KeyCheck): AttestationsOutcome {
  const fetched = fetchLayers(check, "attestations");
  if (!fetched.ok) return fetched;
  const { digest, layers } = fetched;
  const statements: JsonObject[] = [];
  const why: string[] = [];
  for (const layer of layers) {
    const checked = checkEnvelope(check, textOf(layer["payload"] ?? ""), digest);
    if (typeof checked === "string") why.push(checked);
    else if ("statement" in checked) statements.push(checked.statement);
    else return checked;
  }
  if (statements.length === 0)
    return { ok: false, hard: false, message: `no matching attestations: ${why.join("\n ")}` };
  if (check.annotations !== undefined && Object.keys(check.annotations).length > 0)
    return { ok: false, hard: false, message: NO_ANNOTATED_SIGNATURE };
  return { ok: true, digest, statements };
}

/** The statement when the envelope counts; why not; or a hard outcome (the key cannot be read). */
function checkEnvelope(
  check: KeyCheck,
  layer: string,
  digest: string,
): { readonly statement: JsonObject } | string | Extract<EntryOutcome, { ok: false }> {
  const envelope = parseJson(base64Decode(utf8Encode(layer)));
  if (!isObject(envelope)) return "the attestation layer is not a DSSE envelope (JSON)";
  const payloadType = typeof envelope["payloadType"] === "string" ? envelope["payloadType"] : "";
  if (payloadType !== IN_TOTO_PAYLOAD_TYPE)
    return `invalid payloadType ${payloadType} on envelope. Expected ${IN_TOTO_PAYLOAD_TYPE}`;
  // DSSE's EnvelopeVerifier.Verify: signatures first, then the payload and each signature decoded.
  const signatures = Array.isArray(envelope["signatures"]) ? envelope["signatures"].filter(isObject) : [];
  if (signatures.length === 0) return "no signature found";
  const payload = dsseBase64(textOf(envelope["payload"] ?? ""));
  if (payload === undefined) return UNDECODABLE;
  const pae = preAuthEncoding(payloadType, payload);
  let held = false;
  for (const s of signatures) {
    const signature = dsseBase64(textOf(s["sig"] ?? ""));
    if (signature === undefined) return UNDECODABLE;
    const verified = check.ports.signatures?.verify({ publicKey: check.key, data: pae, signature, hash: check.hash });
    if (verified === undefined || !verified.ok)
      return { ok: false, hard: true, message: verified?.error.message ?? "no signature verifier" };
    if (verified.value) {
      held = true;
      break;
    }
  }
  if (!held) return "accepted signatures do not match threshold, Found: 0, Expected 1";
  const statement = parseJson(payload);
  if (!isObject(statement)) return "the envelope's payload is not an in-toto statement (JSON)";
  const subjects = Array.isArray(statement["subject"]) ? statement["subject"].filter(isObject) : [];
  const named = subjects.some(
    (s) =>
      isObject(s["digest"]) &&
      typeof s["digest"]["sha256"] === "string" &&
      `sha256:${s["digest"]["sha256"]}` === digest,
  );
  return named ? { statement } : "no matching subject digest found";
}

const UNDECODABLE = "unable to base64 decode payload (is payload in the right format?)";

/** DSSE's `b64Decode`: standard base64, else URL-safe base64 (both padded, as Go's encodings are). */
function dsseBase64(text: string): Uint8Array | undefined {
  const std = base64Decode(utf8Encode(text));
  if (typeof std !== "string") return std;
  const url = base64Decode(utf8Encode(text.replace(/-/g, "+").replace(/_/g, "/")));
  return typeof url === "string" || /[+/]/.test(text) ? undefined : url;
}

/** DSSE's PAE: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in bytes, ASCII decimal. */
function preAuthEncoding(payloadType: string, body: Uint8Array): Uint8Array {
  const type = utf8Encode(payloadType);
  const head = utf8Encode(`DSSEv1 ${type.length} ${payloadType} ${body.length} `);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

function parseJson(bytes: Uint8Array | string): JsonValue | undefined {
  if (typeof bytes === "string") return undefined;
  try {
    return JSON.parse(utf8DecodeLossy(bytes)) as JsonValue;
  } catch {
    return undefined;
  }
}
