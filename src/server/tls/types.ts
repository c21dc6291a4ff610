/** A PEM certificate (optionally followed by its chain) and the PEM private key that matches it. */
export type { TlsPair } from "../../platform/tls/tls-pair.js";

/** A freshly minted CA and the serving certificate it signed, for `bylaw serve --self-signed`. */
export interface SelfSignedBundle {
  /** PEM of the CA certificate: what clients (the API server) must trust. */
  readonly caCert: string;
  /** PEM of the serving certificate. */
  readonly cert: string;
  /** PEM of the serving certificate's private key. */
  readonly key: string;
  /** base64 of `caCert`, ready for a webhook configuration's `clientConfig.caBundle`. */
  readonly caBundle: string;
}

export interface SelfSignedOptions {
  /** Names the serving certificate is valid for, e.g. `bylaw.bylaw.svc`; the first is also its CN. */
  readonly dnsNames: readonly string[];
  /** Validity in days from `now` (default 365). */
  readonly days?: number;
  /** The issue time; callers pass `new Date()`. notBefore is backdated an hour for clock skew. */
  readonly now: Date;
  /** Also add `localhost` and `127.0.0.1` to the SANs (for local runs and loopback tests). */
  readonly includeLoopback?: boolean;
}
