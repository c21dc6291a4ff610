/**
 * Kyverno's own CEL libraries (kyverno/sdk extensions/cel/libs), in the environment of the
 * policies.kyverno.io kinds only: validate.cel in a ClusterPolicy runs Kubernetes' environment,
 * without them. Not provided (a compile error naming the function): gzip.compress,
 * resource.ToGVR and the GVR overloads, http.Client.
 */
import type { CelLibrary } from "../library.js";
import { contextLibraries } from "./context-libs.js";
import { imageLibrary } from "./image-reference.js";
import { portLibraries } from "./port-libs.js";
import type { ServiceSlot } from "./services.js";
import { valueLibraries } from "./value-libs.js";
import { gzipLibrary } from "./gzip.js";
import { x509Library } from "./x509.js";

export {
  newServiceSlot,
  type CelServices,
  type GeneratorSink,
  type ImageVerifySink,
  type ServiceSlot,
} from "./services.js";
export { imageVerifyLibrary } from "./image-verify.js";
export { generatorLibrary } from "./generator.js";
export { httpAuthzLibrary } from "./http-authz.js";
export { envoyAuthzLibrary } from "./envoy-authz.js";

export function kyvernoLibraries(slot: ServiceSlot, namespaced: boolean): CelLibrary[] {
  return [
    imageLibrary(),
    ...contextLibraries(slot, namespaced),
    ...valueLibraries(),
    ...portLibraries(slot),
    x509Library(),
    gzipLibrary(),
  ];
}
