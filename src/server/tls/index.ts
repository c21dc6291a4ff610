export { loadTlsFiles, checkTlsPair } from "./load-tls-files.js";
export { watchTls } from "./watch-tls.js";
export type { TlsWatch, TlsWatchOptions } from "./watch-tls.js";
// selfSignedCertificate is imported from ./self-signed.js directly: it loads node-forge, which only --self-signed needs.
export type { TlsPair, SelfSignedBundle, SelfSignedOptions } from "./types.js";
export { DEFAULT_CIPHER_SUITES, DEFAULT_TLS_POLICY, tlsPolicyFrom } from "./tls-policy.js";
export type { TlsMinVersion, TlsPolicy } from "./tls-policy.js";
