export { autogenRules, computeRules, autogenRuleName, isAutogenRuleName } from "./autogen.js";
export { autogenControllers, AUTOGEN_ANNOTATION, POD_CONTROLLERS } from "./controllers.js";
export { canAutogen } from "./can-autogen.js";
