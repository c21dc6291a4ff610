/** Kyverno's `validate.podSecurity`: the Pod Security Standards, compiled once and evaluated per resource. */
export { compilePodSecurity, checkPodSecurityExclude } from "./compile.js";
export { evaluatePodSecurity, UNSUPPORTED_KIND_ERROR } from "./evaluate-pod-security.js";
export { podSecurityMessage, podSecurityProperties, formatChecks } from "./message.js";
export { CONTROL_NAMES, controlNameOf } from "./controls.js";
export { POD_CONTROLLER_KINDS } from "./pod-spec.js";
export type {
  CompiledPodSecurity,
  PodSecurityExclude,
  PodSecurityOutcome,
  PssBadValue,
  PssCheck,
  PssFieldError,
  PssLevel,
  PssVersion,
} from "./types.js";
