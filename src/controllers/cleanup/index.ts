export { startCleanupController } from "./start.js";
export { componentDown, markCleanupPolicies } from "./component-down.js";
