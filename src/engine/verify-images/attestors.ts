/**
 * Kyverno's attestor sets (`pkg/engine/internal/imageverifier.go` `verifyAttestorSet`) over cosign
 * public-key checks (cosign-signature.ts): each set needs `count` verified entries (all of them when
 * `count` is unset or 0); an entry is a key, certificate or keyless attestor, or a nested `attestor`
 * set (keys and certificates are checked; keyless needs online services Bylaw does not reach). A `keys.publicKeys` holding several PEM keys stands for one entry per key. Each entry's
 * failure is named by its path (`.attestors[0].entries[1].keys: …`, Kyverno's `attestorPath+subPath`);
 * a set that falls short fails with all of them, joined by "; " (Go's `multierr.Combine`); one that
 * falls short with none failing gives no response (INVALID_RESPONSE). An entry Bylaw cannot check (another attestor kind, no registry
 * access, a transparency log it cannot reach) is `hard`: a set it leaves short is an `error`, not a failure.
 */
import { pemPublicKeys } from "../values/pem-public-keys.js";
import { isObject, type JsonObject, type JsonValue, textOf } from "../api/json.js";
import type { EnginePorts } from "../ports.js";
import { verifyWithKey, type KeyCheck } from "./cosign-signature.js";
import type { ImageVerification } from "./image-verification.js";

export type EntryOutcome =
  | { readonly ok: true; readonly digest: string }
  | { readonly ok: false; readonly hard: boolean; readonly message: string };

export interface AttestorRun {
  readonly image: string;
  readonly entry: ImageVerification;
  readonly ports: EnginePorts;
}

const MAX_NESTING = 4;

/**
 * Kyverno's answer when the attestor sets give no cosign response (`verifyAttestors`: RuleError
 * "invalid response" with the error "nil"): the whole result message, not a reason after the image.
 */
export const INVALID_RESPONSE = "invalid response: nil";

/**
 * A set that falls short with no entry failing (no entries, or `count` above the number of entries)
 * returns no response and no error in Kyverno (`verifyAttestorSet`): a nested set then counts as a
 * verified entry, and the rule's last set leaves the rule with no response (INVALID_RESPONSE).
 */
type SetOutcome = EntryOutcome | { readonly ok: "nil" };

/** Every attestor set of the entry, in order; the first that fails decides, else the last one's response. */
export function verifyAttestors(run: AttestorRun): EntryOutcome {
  let outcome: SetOutcome | undefined;
  for (const [i, set] of run.entry.attestors.entries()) {
    outcome = verifySet(run, set, `.attestors[${i}]`, 0);
    if (outcome.ok === false) return outcome;
  }
  return outcome === undefined || outcome.ok === "nil" ? { ok: false, hard: true, message: INVALID_RESPONSE } : outcome;
}

function verifySet(run: AttestorRun, set: JsonObject, path: string, depth: number): SetOutcome {
  const entries = expandStaticKeys(Array.isArray(set["entries"]) ? set["entries"] : []);
  const count = typeof set["count"] === "number" && set["count"] > 0 ? set["count"] : 0;
  const required = count > 0 ? count : entries.length;
  const errors: string[] = [];
  let hard = false;
  let verified = 0;
  for (const [i, a] of entries.entries()) {
    const at = `${path}.entries[${i}]`;
    const outcome =
      a["attestor"] !== undefined && a["attestor"] !== null
        ? nested(run, a["attestor"], `${at}.attestor`, depth)
        : verifyEntry(run, a, at);
    if (outcome.ok !== false) {
      verified++;
      if (verified >= required) return outcome;
    } else {
      errors.push(outcome.message);
      hard ||= outcome.hard;
    }
  }
  return errors.length > 0 ? { ok: false, hard, message: errors.join("; ") } : { ok: "nil" };
}

function nested(run: AttestorRun, attestor: JsonValue, path: string, depth: number): SetOutcome {
  if (depth >= MAX_NESTING)
    return {
      ok: false,
      hard: true,
      message: `${path}: attestor sets nested deeper than ${MAX_NESTING} levels are not verified`,
    };
  let set: JsonValue = attestor;
  if (typeof attestor === "string") {
    try {
      set = JSON.parse(attestor) as JsonValue;
    } catch {
      return { ok: false, hard: true, message: `failed to unmarshal nested attestor ${path}: not a JSON attestor set` };
    }
  }
  if (!isObject(set))
    return { ok: false, hard: true, message: `failed to unmarshal nested attestor ${path}: not an attestor set` };
  return verifySet(run, set, path, depth + 1);
}

function verifyEntry(run: AttestorRun, a: JsonObject, at: string): EntryOutcome {
  const key = attestorKey(run, a, at);
  if ("ok" in key) return key;
  const outcome = verifyWithKey({ image: run.image, ...key, credentials: run.entry.credentials, ports: run.ports });
  return outcome.ok ? outcome : { ...outcome, message: `${key.path}: ${outcome.message}` };
}

/** What a key or certificate attestor verifies with: its key (PEM), hash, signature repository and annotations; `path` names the attestor field. */
type AttestorKey = Omit<KeyCheck, "image" | "credentials" | "ports"> & { readonly path: string };

/**
 * The key an attestor entry verifies with (Kyverno's `buildCosignVerifier`), or the outcome when
 * there is none Bylaw can use: keyless, secret and kms keys, a Rekor log or SCTs not ignored, a
 * certificate chain that does not hold. Signatures and attestations share it.
 */
export function attestorKey(run: AttestorRun, a: JsonObject, at: string): AttestorKey | EntryOutcome {
  const keys = a["keys"];
  if (isObject(keys)) return keyOf(run, a, keys, `${at}.keys`);
  if (isObject(a["certificates"])) return certificateKey(run, a, a["certificates"], `${at}.certificates`);
  if (isObject(a["keyless"])) {
    return unsupported(
      `${at}.keyless`,
      "keyless verification needs Fulcio certificates and the Rekor transparency log online, which Bylaw does not reach",
    );
  }
  return unsupported(at, "the entry names no keys, certificates, keyless or nested attestor");
}

function keyOf(run: AttestorRun, a: JsonObject, keys: JsonObject, at: string): AttestorKey | EntryOutcome {
  const pem = typeof keys["publicKeys"] === "string" ? keys["publicKeys"].trim() : "";
  if (pem === "") {
    if (isObject(keys["secret"]))
      return unsupported(
        `${at}.secret`,
        "keys read from a Kubernetes Secret are not supported by Bylaw yet; give the PEM in keys.publicKeys",
      );
    if (typeof keys["kms"] === "string" && keys["kms"] !== "")
      return unsupported(`${at}.kms`, "keys held in a KMS are not supported by Bylaw");
    return unsupported(at, "no publicKeys, secret or kms is given");
  }
  const rekor = isObject(keys["rekor"]) ? keys["rekor"] : undefined;
  if (rekor?.["ignoreTlog"] !== true) {
    return unsupported(
      at,
      `Bylaw does not check the Rekor transparency log (${logUrl(rekor)}), which Kyverno checks by default for keys; set keys.rekor.ignoreTlog: true to verify the signature with the key alone`,
    );
  }
  const algorithm = textOf(keys["signatureAlgorithm"] ?? a["signatureAlgorithm"] ?? "sha256") || "sha256";
  if (!isHash(algorithm))
    return unsupported(
      at,
      `signatureAlgorithm ${JSON.stringify(algorithm)} is not one of sha224, sha256, sha384, sha512`,
    );
  return { path: at, key: pem, hash: algorithm, ...placeOf(run, a) };
}

function placeOf(run: AttestorRun, a: JsonObject): Pick<AttestorKey, "repository" | "annotations"> {
  const repository =
    typeof a["repository"] === "string" && a["repository"] !== "" ? a["repository"] : run.entry.repository;
  return { repository, annotations: isObject(a["annotations"]) ? a["annotations"] : run.entry.annotations };
}

/**
 * A certificate attestor (Kyverno's cosign options `Cert`, `CertChain`): the signature must hold
 * under the certificate's key (SHA-256); with `certChain`, the certificate must chain to it first
 * (ports.ts `CertificateCheck`), and its SCT check must be turned off (`ctlog.ignoreSCT`), as the
 * Rekor log must (`rekor.ignoreTlog`): Bylaw reaches neither.
 */
function certificateKey(run: AttestorRun, a: JsonObject, certs: JsonObject, at: string): AttestorKey | EntryOutcome {
  const cert = typeof certs["cert"] === "string" ? certs["cert"].trim() : "";
  if (cert === "")
    return unsupported(
      `${at}.cert`,
      "no certificate is given (a certificate attestor needs cert, optionally with certChain)",
    );
  const rekor = isObject(certs["rekor"]) ? certs["rekor"] : undefined;
  if (rekor?.["ignoreTlog"] !== true) {
    return unsupported(
      at,
      `Bylaw does not check the Rekor transparency log (${logUrl(rekor)}), which Kyverno checks by default for certificates; set certificates.rekor.ignoreTlog: true to verify with the certificate alone`,
    );
  }
  const chain = typeof certs["certChain"] === "string" ? certs["certChain"].trim() : "";
  if (chain !== "") {
    const ctlog = isObject(certs["ctlog"]) ? certs["ctlog"] : undefined;
    if (ctlog?.["ignoreSCT"] !== true)
      return unsupported(
        at,
        "Bylaw does not check certificate transparency (the certificate's SCT), which Kyverno checks by default; set certificates.ctlog.ignoreSCT: true to verify the chain alone",
      );
    const signatures = run.ports.signatures;
    if (signatures?.verifyChain === undefined)
      return unsupported(at, "this engine checks no certificate chains (its signature verifier has none)");
    const held = signatures.verifyChain({ certificate: cert, chain, nowMillis: run.ports.clock.nowMillis() });
    if (!held.ok) return { ok: false, hard: true, message: `${at}: ${held.error.message}` };
    if (held.value !== undefined)
      return {
        ok: false,
        hard: false,
        message: `${at}: failed to load validate certificate with chain: ${held.value}`,
      };
  }
  return { path: at, key: cert, hash: "sha256", ...placeOf(run, a) };
}

function logUrl(rekor: JsonObject | undefined): string {
  return typeof rekor?.["url"] === "string" && rekor["url"] !== "" ? rekor["url"] : "https://rekor.sigstore.dev";
}

export function unsupported(path: string, why: string): EntryOutcome {
  return { ok: false, hard: true, message: `${path}: ${why}` };
}

function isHash(s: string): s is "sha224" | "sha256" | "sha384" | "sha512" {
  return s === "sha224" || s === "sha256" || s === "sha384" || s === "sha512";
}

/** Kyverno's `ExpandStaticKeys`: an entry whose publicKeys holds several PEM keys becomes one entry per key. */
function expandStaticKeys(entries: readonly JsonValue[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const e of entries) {
    if (!isObject(e)) continue;
    const keys = e["keys"];
    const pems = isObject(keys) && typeof keys["publicKeys"] === "string" ? pemPublicKeys(keys["publicKeys"]) : [];
    if (isObject(keys) && pems.length > 1)
      for (const pem of pems) out.push({ ...e, keys: { ...keys, publicKeys: pem } });
    else out.push(e);
  }
  return out;
}
