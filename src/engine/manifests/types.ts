/** validate.manifests compiled once: attestor sets, ignore fields and the annotation domain. */
import type { JsonValue } from "../api/json.js";

/** One `ignoreFields` binding (or a default one): dotted field keys for the objects it names. */
export interface FieldBinding {
  readonly fields: readonly string[];
  /** `{group, version, kind, name, namespace}` patterns; none means every object. */
  readonly objects: readonly ObjectPattern[];
}

export interface ObjectPattern {
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

/** An attestor entry: a static public key, a nested set, or one Bylaw cannot check offline. */
export type AttestorEntry =
  | {
      readonly kind: "key";
      readonly publicKey: string;
      readonly annotations?: Readonly<Record<string, string>>;
      readonly subPath: ".keys";
    }
  | { readonly kind: "nested"; readonly set: AttestorSet; readonly annotations?: Readonly<Record<string, string>> }
  | {
      readonly kind: "offline";
      /** ".keys", ".certificates", ".keyless" or "" as Kyverno writes the entry's path. */
      readonly subPath: string;
      /** Why this entry cannot be verified offline, naming the field. */
      readonly reason: string;
      /** Whether the check fails before any key is needed when no signature is present (keyless, certificates). */
      readonly annotations?: Readonly<Record<string, string>>;
    };

export interface AttestorSet {
  /** How many entries must verify; undefined or 0: all of them. */
  readonly count: number | undefined;
  readonly entries: readonly AttestorEntry[];
}

export interface CompiledManifests {
  /** Annotation domain: `cosign.sigstore.dev` unless `annotationDomain` says otherwise. */
  readonly domain: string;
  readonly attestors: readonly AttestorSet[];
  /** The policy's `ignoreFields` (the defaults are added at verification). */
  readonly ignoreFields: readonly FieldBinding[];
  /** A reason the whole rule cannot be evaluated offline (dryRun, repository), naming the field. */
  readonly unsupported?: string;
}

/**
 * What a rule's `validate.manifests` compiled to: read once at load, or, when it holds `{{ }}`
 * variables, kept as written (with its field path) to be substituted and read at evaluation.
 */
export type CompiledManifestsRule =
  { readonly compiled: CompiledManifests } | { readonly template: JsonValue; readonly path: string };
