/**
 * What Kyverno's CEL libraries read at evaluation time (the engine's ports, and whose policy asks),
 * handed to a program's `evaluate` and seen by the library handlers through a slot their engine
 * owns: cel-js calls a handler with its arguments only. Evaluation is synchronous, so the slot
 * holds the services of the one evaluation running (nested lazy variables pass the same ones).
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import type { EnginePorts } from "../../ports.js";
import { CelFunctionError } from "../library.js";

export interface CelServices {
  readonly ports: EnginePorts;
  /** The policy's namespace: "" for a cluster-wide policy, else a NamespacedValidatingPolicy's. */
  readonly policyNamespace: string;
  /**
   * The namespace of a namespaced document whose expressions run with the policy's (a
   * PolicyException's matchConditions), when it has one: it may not read cluster-wide data
   * (globalContext) even when the policy it excepts may (tenant-isolation.md rule 3).
   */
  readonly authorNamespace?: string;
  /** Where `generator.Apply` records what a GeneratingPolicy's generate expression asks for; absent elsewhere. */
  readonly generator?: GeneratorSink;
  /** What an ImageValidatingPolicy's image functions (`verifyImageSignatures`, …) ask; absent elsewhere. */
  readonly imageVerifier?: ImageVerifySink;
}

/**
 * The image verification an ImageValidatingPolicy's CEL functions run (kinds/image-validating/):
 * each answers at once through the engine's registry port, or throws a CelFunctionError naming why.
 */
export interface ImageVerifySink {
  /** How many of the attestors verify the image's signatures. */
  verifyImageSignatures(image: string, attestors: readonly JsonValue[]): number;
  /** How many of the attestors verify the named attestation of the image. */
  verifyAttestationSignatures(image: string, attestation: string, attestors: readonly JsonValue[]): number;
  /** The predicate of the named attestation, once verified. */
  extractPayload(image: string, attestation: string): JsonValue;
  /** The image's data from its registry (digest, manifest, config). */
  getImageData(image: string): JsonValue;
}

/** What `generator.Apply(namespace, objects)` asks for, collected for the caller to check and write. */
export interface GeneratorSink {
  apply(namespace: string, objects: readonly JsonObject[]): void;
}

export interface ServiceSlot {
  current: CelServices | undefined;
}

export function newServiceSlot(): ServiceSlot {
  return { current: undefined };
}

/** The running evaluation's services; a call made where none were given is an error naming it. */
export function servicesFor(slot: ServiceSlot, call: string): CelServices {
  const s = slot.current;
  if (s === undefined) throw new CelFunctionError(`${call}: not available here (no engine ports for this evaluation)`);
  return s;
}
