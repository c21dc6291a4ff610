/** The OCI registry client and what the CLI and the webhook build on it (docs/adr/0015). */

export { Keychain } from "./keychain.js";
export { httpTransport, type Transport } from "./http-transport.js";
export { RegistryClient } from "./registry-client.js";
export { imageDataOf, fetchFailed } from "./image-data.js";
export { RegistryAccess, withRegistryPasses } from "./registry-access.js";
export { localKeychain } from "./local-keychain.js";
