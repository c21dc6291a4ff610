/** validate.cel in kyverno.io ClusterPolicy/Policy rules: compiled at load, evaluated per request. */
export { compileCelRule, usesCel, type CompiledCelRule } from "./compile.js";
export { evaluateCelRule, messageOf } from "./evaluate.js";
export { celPolicyInput, celRuleInput, forPolicyKinds, type CelRuleInput } from "./input.js";
