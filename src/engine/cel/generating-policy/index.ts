/** GeneratingPolicy (policies.kyverno.io): its spec compiled at load (kinds/generating/ builds the policy), evaluated per trigger. */
export { compileGeneratingBody } from "./compile.js";
export { evaluateGeneratingPolicy } from "./evaluate.js";
export { GENERATING_DOWNSTREAM_RULE, type CompiledGeneratingPolicy } from "./compiled.js";
