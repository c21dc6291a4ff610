/**
 * What Kyverno's CEL libraries read at evaluation time (the engine's ports, and whose policy asks),
 * handed to a program's `evaluate` and seen by the library handlers through a slot their engine
 * owns: cel-js calls a handler with its arguments only. Evaluation is synchronous, so the slot
 * holds the services of the one evaluation running (nested lazy variables pass the same ones).
 */
import type { JsonObject } from "../../api/json.js";
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
