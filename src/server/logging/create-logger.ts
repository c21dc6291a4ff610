/**
 * Bylaw's structured JSON logger (pino): one JSON object per line, level as a word, ISO time.
 * Secret contents never reach the output: every logged object and every child logger's bindings
 * go through `redactLogObject` (`*.data`, `*.stringData`, and Secrets at any depth), and pino
 * redacts the data of a review's objects by path. The destination is injectable.
 */
import { pino, type DestinationStream, type Level, type Logger } from "pino";
import { REDACTED, redactLogObject } from "./redact-secrets.js";

const LOG_LEVELS: readonly (Level | "silent")[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

interface LoggerOptions {
  /** One of LOG_LEVELS; "info" when omitted. */
  readonly level?: string;
  /** Where lines go; stdout when omitted. */
  readonly destination?: DestinationStream;
}

/**
 * Paths pino itself redacts: the data of a review's objects, whatever their kind. The wildcard
 * paths `*.data` and `*.stringData` are applied by `redactLogObject` instead (same effect, a
 * tenth of the cost); Secrets at any depth by `redactSecrets`.
 */
const REDACT_PATHS: readonly string[] = [
  "data",
  "stringData",
  "request.object.data",
  "request.object.stringData",
  "request.oldObject.data",
  "request.oldObject.stringData",
];

export function isLogLevel(level: string): level is Level | "silent" {
  return (LOG_LEVELS as readonly string[]).includes(level);
}

/** Throws when `level` is not one of LOG_LEVELS (validate user input with `isLogLevel` first). */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? "info";
  if (!isLogLevel(level)) throw new Error(`unknown log level "${level}": use one of ${LOG_LEVELS.join(", ")}`);
  const config = {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    formatters: {
      level: (label: string) => ({ level: label }),
      bindings: (bindings: Record<string, unknown>) => redactLogObject(bindings),
      log: (object: Record<string, unknown>) => redactLogObject(object),
    },
  };
  const logger = options.destination === undefined ? pino(config) : pino(config, options.destination);
  // pino applies `formatters.bindings` to the root's base only; children (which inherit this
  // method through their prototype) get their bindings cleaned here.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with `this`, the logger it is called on
  const child = logger.child;
  logger.child = function (this: Logger, bindings, childOptions) {
    return child.call(this, redactLogObject(bindings), childOptions);
  } as typeof child;
  return logger;
}
