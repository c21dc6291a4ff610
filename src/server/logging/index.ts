export { createLogger, isLogLevel } from "./create-logger.js";
export { logAdmission } from "./log-admission.js";
export type { Logger } from "pino";
