/**
 * The `kyverno apply` flags (v1.19) that Bylaw's own flags do not cover: the ones it accepts with
 * no effect (colour, concurrency), the ones it does not run yet (refused by name, exit 2, never
 * silently ignored), and the warning exit codes (--warn-exit-code, --warn-no-pass).
 */
import { parseDurationOrError } from "../../../engine/index.js";

/** parseArgs option entries for the flags only Kyverno's CLI has. */
export const KYVERNO_ONLY_OPTIONS = {
  "remove-color": { type: "boolean" },
  "continue-on-fail": { type: "boolean" },
  "continue-on-error": { type: "boolean" },
  "exceptions-within-policies": { type: "boolean" },
  concurrent: { type: "string" },
  "batch-size": { type: "string" },
  "generate-exceptions": { type: "boolean" },
  "generated-exception-ttl": { type: "string" },
  "parameter-resource": { type: "string", multiple: true },
  "context-file": { type: "string" },
  "cluster-wide-resources": { type: "boolean" },
  "show-performance": { type: "boolean" },
  "crd-paths": { type: "string", multiple: true },
  "crd-path": { type: "string", multiple: true },
  "exceptions-within-resources": { type: "boolean" },
  username: { type: "string" },
  password: { type: "string" },
} as const;

/** Kyverno flags Bylaw does not run yet: each is refused with its name, so a script never gets a silent pass. */
const NOT_SUPPORTED = {
  "exceptions-within-resources": "PolicyExceptions among the -r documents are read with --exceptions-with-resources",
} as const;

/** The usage error for the first Kyverno flag given that Bylaw does not support yet, if any. */
export function unsupportedKyvernoFlag(values: Readonly<Record<string, unknown>>): string | undefined {
  const given = (Object.keys(NOT_SUPPORTED) as (keyof typeof NOT_SUPPORTED)[]).find(
    (f) => values[f] !== undefined && values[f] !== false,
  );
  return given === undefined
    ? undefined
    : `--${given} (a kyverno apply flag) is not supported by Bylaw yet (${NOT_SUPPORTED[given]}); run without it, or use Kyverno's CLI for this run`;
}

/** `--generated-exception-ttl`: a Go duration (Kyverno's default 720h0m0s, 30 days), in nanoseconds. */
export function parseExceptionTtl(raw: string | undefined): { ok: true; ns: bigint } | { ok: false; error: string } {
  if (raw === undefined) return { ok: true, ns: 720n * 3_600_000_000_000n };
  const ns = parseDurationOrError(raw);
  return typeof ns === "bigint"
    ? { ok: true, ns }
    : { ok: false, error: `invalid argument ${JSON.stringify(raw)} for "--generated-exception-ttl" flag: ${ns}` };
}

/**
 * Kyverno's `-t` is --table; Bylaw's `-t` was --target-resource. `-t` followed by a path is most
 * likely the old spelling: say how the path is now read.
 */
export function shortTWarning(args: readonly string[]): string | undefined {
  const at = args.indexOf("-t");
  const next = at >= 0 ? args[at + 1] : undefined;
  if (next === undefined || next.startsWith("-")) return undefined;
  return `warning: -t is --table, as in kyverno apply; ${next} is read as a POLICY path. For objects that already exist (mutate-existing targets, clone sources) write --target-resource ${next}`;
}

/** `--warn-exit-code N`: an integer (Kyverno's default 0: warnings do not change the exit code). */
export function parseWarnExitCode(raw: string | undefined): { ok: true; code: number } | { ok: false; error: string } {
  if (raw === undefined) return { ok: true, code: 0 };
  const code = Number(raw.trim());
  if (raw.trim() === "" || !Number.isInteger(code) || code < 0 || code > 255)
    return { ok: false, error: `--warn-exit-code must be an integer from 0 to 255 (got ${JSON.stringify(raw)})` };
  return { ok: true, code };
}

interface ResultCounts {
  readonly pass: number;
  readonly fail: number;
  readonly warn: number;
  readonly error: number;
}

interface WarnExit {
  readonly code: number;
  /** Kyverno's words for why the run exits with the warning code. */
  readonly message?: string;
  /** Kyverno ends the message's line (Println); "exit as warnExitCode is N" it does not (Printf). */
  readonly lineEnds?: boolean;
}

/**
 * The exit code as kyverno apply decides it: a fail or an error is 1; otherwise warnings exit with
 * --warn-exit-code when it is not 0; otherwise, with --warn-no-pass, a run where nothing passed
 * exits with --warn-exit-code (0 unless given).
 */
export function applyExitCode(counts: ResultCounts, flags: { warnExitCode: number; warnNoPass: boolean }): WarnExit {
  if (counts.fail > 0 || counts.error > 0) return { code: 1 };
  if (counts.warn > 0 && flags.warnExitCode !== 0)
    return { code: flags.warnExitCode, message: `exit as warnExitCode is ${flags.warnExitCode}` };
  if (counts.pass === 0 && flags.warnNoPass)
    return { code: flags.warnExitCode, message: "exit as no objects satisfied policy", lineEnds: true };
  return { code: 0 };
}
