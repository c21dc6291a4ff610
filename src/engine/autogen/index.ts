export { computeRules, isAutogenRuleName } from "./autogen.js";
