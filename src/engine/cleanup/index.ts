export {
  cleanupDecision,
  compileCleanupPolicy,
  type CleanupCandidate,
  type CompiledCleanupPolicy,
  type DeletionPropagation,
} from "./cleanup-policy.js";
export { TTL_LABEL, TTL_PROPAGATION_ANNOTATION, ttlDeadline } from "./ttl-label.js";
