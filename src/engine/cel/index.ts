/** The CEL environment (ADR 0010): compile once with `createCel`, evaluate many times. */
export { createCel } from "./create-cel.js";
export { sharedCel } from "./shared-cel.js";
export { fromCel, toCel } from "./values.js";
export { type CelActivation, type CelEngine } from "./types.js";
