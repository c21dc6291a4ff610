/**
 * Bylaw as a library, for a program that checks manifests itself (a cdk8s or Pulumi program, a
 * test suite): `createBylaw` for policies in and results out; `createOfflineEngine` for an engine
 * with Node's ports and no cluster, to drive the engine's calls directly.
 */
export { createBylaw } from "./create-bylaw.js";
export { createOfflineEngine } from "../platform/offline-engine.js";
export type { MockedApiCall, OfflineContextOptions } from "../platform/offline-context.js";
export type {
  Bylaw,
  BylawOptions,
  BylawOutcome,
  CheckOptions,
  PolicyInput,
  PolicyRuleResult,
  ResourceReport,
} from "./types.js";
