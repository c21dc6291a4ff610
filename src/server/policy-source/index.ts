export { directoryPolicySource } from "./directory-policy-source.js";

export type { LogFn } from "./types.js";
