/**
 * Kyverno's image verification CEL functions (pkg/cel/libs/imageverify), in an
 * ImageValidatingPolicy's environment only: `verifyImageSignatures(image, attestors)` and
 * `verifyAttestationSignatures(image, attestation, attestors)` answer how many of the attestors
 * verified (an int), `extractPayload(image, attestation)` the attestation's verified predicate and
 * `getImageData(image)` the image's data. The evaluation's ImageVerifySink (services.ts) answers.
 */
import { CelFunctionError, type CelLibrary } from "../library.js";
import { fromCel, toCel } from "../values.js";
import { servicesFor, type ImageVerifySink, type ServiceSlot } from "./services.js";
import type { JsonValue } from "../../api/json.js";

function sink(slot: ServiceSlot, call: string): ImageVerifySink {
  const verifier = servicesFor(slot, call).imageVerifier;
  if (verifier === undefined) throw new CelFunctionError(`${call}: only an ImageValidatingPolicy verifies images`);
  return verifier;
}

function list(v: unknown): JsonValue[] {
  const json = fromCel(v);
  return Array.isArray(json) ? json : [];
}

export function imageVerifyLibrary(slot: ServiceSlot): CelLibrary {
  return {
    name: "kyverno.imageverify",
    functions: [
      {
        signature: "verifyImageSignatures(string, list<dyn>): int",
        handler: (image: string, attestors: unknown) =>
          BigInt(sink(slot, "verifyImageSignatures").verifyImageSignatures(image, list(attestors))),
      },
      {
        signature: "verifyAttestationSignatures(string, string, list<dyn>): int",
        handler: (image: string, attestation: string, attestors: unknown) =>
          BigInt(
            sink(slot, "verifyAttestationSignatures").verifyAttestationSignatures(image, attestation, list(attestors)),
          ),
      },
      {
        signature: "extractPayload(string, string): dyn",
        handler: (image: string, attestation: string) =>
          toCel(sink(slot, "extractPayload").extractPayload(image, attestation)),
      },
      {
        signature: "getImageData(string): dyn",
        handler: (image: string) => toCel(sink(slot, "getImageData").getImageData(image)),
      },
    ],
  };
}
