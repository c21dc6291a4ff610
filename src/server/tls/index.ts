export { loadTlsFiles, checkTlsPair } from "./load-tls-files.js";
export { watchTls } from "./watch-tls.js";
export type { TlsWatch, TlsWatchOptions } from "./watch-tls.js";
export { selfSignedCertificate } from "./self-signed.js";
export type { TlsPair, SelfSignedBundle, SelfSignedOptions } from "./types.js";
