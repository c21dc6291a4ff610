/**
 * Everything the pure engine needs from the outside world comes through these ports.
 * The CLI passes offline implementations (values files, mocks); the server passes live ones.
 */
import type { JsonValue } from "./api/json.js";
import type { Result } from "./api/result.js";

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMillis(): number;
}

export interface Random {
  /** A float in [0, 1). */
  next(): number;
}

export interface Hasher {
  sha256Hex(data: string): string;
  sha1Hex(data: string): string;
  md5Hex(data: string): string;
}

/** Answers for context entries that read from a cluster or another service. */
export interface ContextSources {
  /**
   * Whether entries of this kind can be loaded at all here. When false the entry is not loaded
   * (nor are its variables substituted), as Kyverno's CLI does without a cluster; see `unloadable`.
   */
  canLoad(kind: "configMap" | "apiCall" | "imageRegistry" | "globalReference"): boolean;
  /**
   * What an entry this port cannot load (`canLoad` false, or an "unavailable" answer) means when no
   * value stands in for its name (from a values file): "error" (the default) makes the rule an error
   * naming the entry, since a rule must never pass on data nobody read; "skip", which a caller must
   * ask for, leaves the name unset, as Kyverno's CLI does.
   * imageRegistry entries are an error either way: nothing in Bylaw can load them yet.
   */
  readonly unloadable?: "skip" | "error";
  configMap(namespace: string, name: string): Result<JsonValue>;
  apiCall(request: ApiCallRequest): Result<JsonValue>;
  globalReference(name: string): Result<JsonValue>;
  imageData(reference: string): Result<JsonValue>;
}

export interface ApiCallRequest {
  readonly urlPath?: string;
  readonly serviceUrl?: string;
  readonly method: "GET" | "POST";
  readonly data?: JsonValue;
}

/** For `is_external_url`: whether a host resolves only to private or loopback addresses. */
export interface HostResolver {
  isExternalHost(host: string): Result<boolean>;
}

export interface EnginePorts {
  readonly clock: Clock;
  readonly random: Random;
  readonly hasher: Hasher;
  readonly context: ContextSources;
  readonly hosts: HostResolver;
}
