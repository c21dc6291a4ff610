/**
 * Bylaw's library API: the engine, for checking manifests from your own TypeScript.
 * `createOfflineEngine()` wires it with the system clock, crypto hashing and no cluster access;
 * `createEngine(ports)` takes your own ports.
 */
export { createEngine, type Engine, type RequestInput } from "./engine/engine.js";
export type { PreparedRequest } from "./engine/pipeline/prepared-request.js";
export { offlineEngine as createOfflineEngine } from "./cli/offline/offline-engine.js";
export type { EngineRequest, PolicyResponse, EngineEnv } from "./engine/pipeline/types.js";
export type { CompiledPolicy, CompiledRule } from "./engine/policy/compiled-policy.js";
export type { CompileOutcome } from "./engine/policy/compile-policy.js";
export type { PolicyProblem } from "./engine/policy/problem.js";
export type { RuleResult, RuleStatus } from "./engine/api/rule-result.js";
export type { JsonValue, JsonObject } from "./engine/api/json.js";
export type { Resource, Operation, RequestUserInfo } from "./engine/api/resource.js";
export type { PolicyDocument, Rule } from "./engine/api/policy.js";
export type { EnginePorts, ContextSources, Clock, Random, Hasher, HostResolver } from "./engine/ports.js";
export { parseDocuments } from "./platform/yaml/index.js";
export { loadPaths } from "./platform/files/index.js";
export type { MutationResult } from "./engine/pipeline/mutate-request.js";
export type { JsonPatchOp } from "./engine/mutate/json-patch/index.js";
export type { ExistingResources, GeneratedResource } from "./engine/generate/index.js";
