/** What a kind family runs at evaluation (ADR 0005 §2): kinds/evaluation.ts picks one by the policy's language. */
import type { ExistingResources } from "../generate/index.js";
import type { PreparedRequest } from "../pipeline/prepared-request.js";
import type { EngineEnv, PolicyResponse } from "../pipeline/types.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";

export interface KindEvaluation {
  validate(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv): PolicyResponse;
  mutate(
    policy: CompiledPolicy,
    request: PreparedRequest,
    env: EngineEnv,
    existing?: ExistingResources,
  ): PolicyResponse;
  generate(
    policy: CompiledPolicy,
    request: PreparedRequest,
    env: EngineEnv,
    existing: ExistingResources,
  ): PolicyResponse;
}
