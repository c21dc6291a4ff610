export { loadTlsFiles } from "./load-tls-files.js";
export { watchTls } from "./watch-tls.js";

// selfSignedCertificate is imported from ./self-signed.js directly: it loads node-forge, which only --self-signed needs.

export { tlsPolicyFrom } from "./tls-policy.js";
export type { TlsPolicy } from "./tls-policy.js";
