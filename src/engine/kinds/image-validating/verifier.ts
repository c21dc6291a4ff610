/**
 * The image functions of one ImageValidatingPolicy evaluation (Kyverno `pkg/cel/libs/imageverify`),
 * over the engine's registry port: `verifyImageSignatures` counts the attestors under which the
 * image's cosign signatures hold (cosign-signature.ts), `verifyAttestationSignatures` those under
 * which an in-toto attestation of the named attestation's type holds (cosign-attestation.ts),
 * `extractPayload` answers a verified attestation's predicate, `getImageData` the image's data.
 * An image matchImageReferences does not select counts 0, as Kyverno's. An attestor's failure to
 * verify counts 0 (Kyverno keeps no reason either); what Bylaw cannot check (a keyless or notary
 * attestor, a registry it could not read) is an error naming it, never a count. Every verification
 * with attestors is recorded per image, for `required`.
 */
import { isObject, textOf, type JsonObject, type JsonValue } from "../../api/json.js";
import { CelFunctionError } from "../../cel/library.js";
import type { ImageVerifySink } from "../../cel/kyverno/index.js";
import type { ContextCaller, EnginePorts } from "../../ports.js";
import { fetchAttestations } from "../../verify-images/cosign-attestation.js";
import { verifyWithKey, type KeyCheck } from "../../verify-images/cosign-signature.js";
import type { EntryOutcome } from "../../verify-images/attestors.js";
import { attestorProblem } from "./attestors.js";
import type { CompiledImageValidatingBody } from "./body.js";

interface VerifierSetup {
  readonly body: CompiledImageValidatingBody;
  readonly ports: EnginePorts;
  readonly caller: ContextCaller;
  /** Whether matchImageReferences select the image (throws on an expression error). */
  readonly selects: (image: string) => boolean;
}

export class ImageVerifier implements ImageVerifySink {
  /** image → whether an attestor verified it (Kyverno's ImageVerificationResults). */
  readonly verified = new Map<string, boolean>();
  private readonly statements = new Map<string, JsonObject[]>();

  constructor(private readonly setup: VerifierSetup) {}

  verifyImageSignatures(image: string, attestors: readonly JsonValue[]): number {
    if (!this.setup.selects(image)) return 0;
    let count = 0;
    for (const a of attestors) {
      const check = this.keyCheck(image, a);
      if (check !== undefined && this.settle(verifyWithKey(check))) count++;
    }
    this.record(image, attestors.length, count);
    return count;
  }

  verifyAttestationSignatures(image: string, attestation: string, attestors: readonly JsonValue[]): number {
    if (!this.setup.selects(image)) return 0;
    const type = this.predicateType(attestation);
    let count = 0;
    for (const a of attestors) {
      const check = this.keyCheck(image, a);
      const fetched = check === undefined ? undefined : fetchAttestations(check);
      if (fetched === undefined || !this.settle(fetched) || !fetched.ok) continue;
      const typed = fetched.statements.filter((s) => s["predicateType"] === type);
      if (typed.length === 0) continue;
      count++;
      this.statements.set(`${image}\u0000${attestation}`, typed);
    }
    this.record(image, attestors.length, count);
    return count;
  }

  extractPayload(image: string, attestation: string): JsonValue {
    this.predicateType(attestation);
    const statements = this.statements.get(`${image}\u0000${attestation}`);
    const first = statements?.[0];
    if (first === undefined)
      throw new CelFunctionError(
        `failed to get payload: the attestation ${attestation} of ${image} is not verified (call verifyAttestationSignatures first)`,
      );
    return first["predicate"] ?? null;
  }

  getImageData(image: string): JsonValue {
    const r = this.setup.ports.context.imageData(image, {
      form: "metadata",
      ...this.place(),
    });
    if (!r.ok) throw new CelFunctionError(`failed to get imagedata: ${r.error.message}`);
    return r.value;
  }

  private place(): { credentials?: JsonObject; caller: ContextCaller } {
    const credentials = this.setup.body.credentials;
    return { ...(credentials !== undefined ? { credentials } : {}), caller: this.setup.caller };
  }

  private record(image: string, attestors: number, count: number): void {
    if (attestors > 0) this.verified.set(image, (this.verified.get(image) ?? false) || count > 0);
  }

  /** Whether the outcome verified; a hard one (Bylaw could not check) is the call's error. */
  private settle(outcome: EntryOutcome | { readonly ok: true }): boolean {
    if (outcome.ok) return true;
    if (outcome.hard) throw new CelFunctionError(`failed to get imagedata: ${outcome.message}`);
    return false;
  }

  private predicateType(attestation: string): string {
    const a = this.setup.body.attestations.get(attestation);
    if (a === undefined) throw new CelFunctionError(`attestation not found in policy: ${attestation}`);
    if (isObject(a["referrer"]))
      throw new CelFunctionError(
        `attestation ${attestation}: referrer (OCI 1.1 referrers) attestations are not supported by Bylaw; use intoto`,
      );
    const intoto = isObject(a["intoto"]) ? a["intoto"] : {};
    return typeof intoto["type"] === "string" ? intoto["type"] : "";
  }

  /**
   * The key or certificate an attestor verifies with; undefined when its certificate does not chain
   * to its certChain (the attestor does not verify); its error naming what Bylaw cannot check.
   */
  private keyCheck(image: string, value: JsonValue): KeyCheck | undefined {
    if (!isObject(value)) throw new CelFunctionError("an attestor is not an object (pass attestors.<name>)");
    const name = typeof value["name"] === "string" ? value["name"] : "";
    const known = this.setup.body.attestors.find((a) => a.name === name);
    const problem =
      known !== undefined ? known.unsupported : attestorProblem(value, `attestor ${JSON.stringify(name)}`);
    if (problem !== undefined) throw new CelFunctionError(problem);
    const cosign = isObject(value["cosign"]) ? value["cosign"] : {};
    const source = isObject(cosign["source"]) ? cosign["source"] : {};
    const common = {
      image,
      repository: typeof source["repository"] === "string" ? source["repository"] : "",
      annotations: isObject(cosign["annotations"]) ? cosign["annotations"] : undefined,
      credentials: this.setup.body.credentials,
      ports: this.setup.ports,
      caller: this.setup.caller,
    };
    const key = isObject(cosign["key"]) ? cosign["key"] : undefined;
    if (key !== undefined)
      return { ...common, key: textOf(key["data"] ?? "").trim(), hash: hashOf(key["hashAlgorithm"]) };
    const cert = this.certificate(cosign);
    return cert === undefined ? undefined : { ...common, key: cert, hash: "sha256" };
  }

  /** The certificate's PEM, after its chain holds (when one is given); undefined when it does not. */
  private certificate(cosign: JsonObject): string | undefined {
    const certificate = isObject(cosign["certificate"]) ? cosign["certificate"] : {};
    const cert = isObject(certificate["cert"]) ? textOf(certificate["cert"]["value"] ?? "").trim() : "";
    const chain = isObject(certificate["certChain"]) ? certificate["certChain"]["value"] : undefined;
    if (typeof chain !== "string" || chain.trim() === "") return cert;
    const signatures = this.setup.ports.signatures;
    if (signatures?.verifyChain === undefined)
      throw new CelFunctionError("this engine checks no certificate chains (its signature verifier has none)");
    const held = signatures.verifyChain({ certificate: cert, chain, nowMillis: this.setup.ports.clock.nowMillis() });
    if (!held.ok) throw new CelFunctionError(held.error.message);
    return held.value === undefined ? cert : undefined;
  }
}

function hashOf(v: JsonValue | undefined): KeyCheck["hash"] {
  const h = typeof v === "string" && v !== "" ? v.toLowerCase() : "sha256";
  if (h === "sha224" || h === "sha256" || h === "sha384" || h === "sha512") return h;
  throw new CelFunctionError(`hashAlgorithm ${JSON.stringify(v)} is not one of sha224, sha256, sha384, sha512`);
}
