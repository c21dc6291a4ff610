/**
 * Bylaw's library API: Kyverno policies checked from your own TypeScript, without the CLI.
 * `createBylaw({ policies })` compiles policies (objects or YAML text) and checks resources against
 * them: rule results, the patched resource and generated resources come back.
 * `createOfflineEngine()` is the engine with Node's clock, crypto hashing and no cluster access;
 * `createEngine(ports)` takes your own ports. Every type here is the engine's or the library's.
 */
export {
  createBylaw,
  createOfflineEngine,
  type Bylaw,
  type BylawOptions,
  type BylawOutcome,
  type CheckOptions,
  type MockedApiCall,
  type OfflineContextOptions,
  type PolicyInput,
  type PolicyRuleResult,
  type ResourceReport,
} from "./library/index.js";
export {
  createEngine,
  type Clock,
  type CompiledPolicy,
  type CompiledRule,
  type CompileOutcome,
  type ContextSources,
  type Engine,
  type EngineEnv,
  type ExplainedConditions,
  type FailedAt,
  type PolicyExplanation,
  type RuleExplanation,
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
  type PreparedRequest,
  type PolicyProblem,
  type PolicyResponse,
  type Random,
  type RequestInput,
  type RequestUserInfo,
  type Resource,
  type Rule,
  type RuleResult,
  type RuleStatus,
} from "./engine/index.js";
export { parseDocuments, type LoadedDocument } from "./platform/yaml/index.js";
export { loadPaths } from "./platform/files/index.js";
