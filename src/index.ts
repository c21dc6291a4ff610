/**
 * Bylaw's library API: the engine, for checking manifests from your own TypeScript.
 * `createOfflineEngine()` wires it with the system clock, crypto hashing and no cluster access;
 * `createEngine(ports)` takes your own ports.
 */
export {
  createEngine,
  type Clock,
  type CompiledPolicy,
  type CompiledRule,
  type CompileOutcome,
  type ContextSources,
  type Engine,
  type EngineEnv,
  type EnginePorts,
  type EngineRequest,
  type ExistingResources,
  type GeneratedResource,
  type Hasher,
  type HostResolver,
  type JsonObject,
  type JsonPatchOp,
  type JsonValue,
  type MutationResult,
  type Operation,
  type PolicyDocument,
  type PolicyProblem,
  type PolicyResponse,
  type Random,
  type RequestUserInfo,
  type Resource,
  type Rule,
  type RuleResult,
  type RuleStatus,
} from "./engine/index.js";
export { offlineEngine as createOfflineEngine } from "./cli/offline/offline-engine.js";
export { parseDocuments } from "./platform/yaml/index.js";
export { loadPaths } from "./platform/files/index.js";
