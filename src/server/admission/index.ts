/**
 * The pure admission handlers of `bylaw serve`: an already-parsed AdmissionReview body in, an
 * AdmissionReview (HTTP 200) or a 400 explanation out. No sockets, no I/O; policies, cluster facts,
 * the clock and the recorder come in through AdmissionDeps (deps.ts).
 */
export { handleMutate, handleMutateBounded } from "./mutate-handler.js";
export { handleValidate, handleValidateBatch } from "./validate-handler.js";
export { handlePolicyValidate, deprecationWarning } from "./policy-validate-handler.js";
export { parseReview, type ParsedReview } from "./parse-review.js";
export { denialMessage, type ResourceId } from "./denial-message.js";
export { warningMessages } from "./warnings.js";
export { failurePolicyOf, hasEnforceAction } from "./policy-traits.js";
export type {
  AdmissionRequestJson,
  AdmissionResponseJson,
  AdmissionReviewJson,
  DenialStatusJson,
  GroupVersionKindJson,
  GroupVersionResourceJson,
  HandlerResult,
  UserInfoJson,
  WebhookGroup,
  WebhookMode,
  WebhookSelector,
} from "./types.js";
