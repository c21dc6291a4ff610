export { createLogger, isLogLevel } from "./create-logger.js";
export { logAdmission } from "./log-admission.js";
