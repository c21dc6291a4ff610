/** Kyverno's `validate.podSecurity`: the Pod Security Standards, compiled once and evaluated per resource. */
export { compilePodSecurity, checkPodSecurityExclude } from "./compile.js";
export { evaluatePodSecurity } from "./evaluate-pod-security.js";
export type { CheckMemo } from "./evaluate.js";
export { podSecurityMessage, podSecurityProperties } from "./message.js";

export type { CompiledPodSecurity } from "./types.js";
