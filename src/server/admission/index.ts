/**
 * The pure admission handlers of `bylaw serve`: an already-parsed AdmissionReview body in, an
 * AdmissionReview (HTTP 200) or a 400 explanation out. No sockets, no I/O; policies, cluster facts,
 * the clock and the recorder come in through AdmissionDeps (deps.ts).
 */
export { handleMutate, handleMutateBounded } from "./mutate-handler.js";
export { handleValidate, handleValidateBatch } from "./validate-handler.js";
export { handlePolicyValidate, handlePolicyValidateVetted } from "./policy-validate-handler.js";
export { parseReview } from "./parse-review.js";

export type { AdmissionResponseJson, HandlerResult } from "./types.js";
