export { createLogger, isLogLevel, LOG_LEVELS, REDACT_PATHS, type LoggerOptions } from "./create-logger.js";
export { logAdmission } from "./log-admission.js";
export { redactLogObject, redactSecrets, REDACTED } from "./redact-secrets.js";
export type { Logger } from "pino";
