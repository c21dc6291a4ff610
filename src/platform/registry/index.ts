/** The OCI registry client and what the CLI and the webhook build on it (docs/adr/0015). */
export { parseImageReference, registryScheme, DOCKER_HUB, type ImageReference } from "./reference.js";
export { Keychain, registryKey, type RegistryCredential } from "./keychain.js";
export {
  httpTransport,
  DEFAULT_MAX_BYTES,
  type HttpAnswer,
  type HttpExchange,
  type Transport,
  type TransportOptions,
} from "./http-transport.js";
export { RegistryClient, type FetchedImage, type RegistryClientOptions } from "./registry-client.js";
export { imageDataOf, fetchFailed, type ImageDataForm } from "./image-data.js";
export { RegistryAccess, withRegistryPasses, MAX_REGISTRY_PASSES, type ImageDataSource } from "./registry-access.js";
export { localKeychain } from "./local-keychain.js";
