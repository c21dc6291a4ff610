/** Go's time.ParseDuration for the durations CRDs carry (`refreshInterval: 10m`, `1h30m`, `500ms`), in milliseconds. */
import { err, ok, type Result } from "../../engine/index.js";

const UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export function parseGoDuration(text: string): Result<number> {
  const bad = (): Result<number> =>
    err("context", `invalid duration ${JSON.stringify(text)} (Go syntax, e.g. 30s, 10m, 1h30m)`);
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(text);
  if (text === "0") return ok(0);
  if (m === null) return bad();
  let total = 0;
  for (const part of text.replace(/^[+-]/, "").matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g))
    total += Number(part[1]) * (UNITS[part[2] ?? ""] ?? 0);
  return ok(m[1] === "-" ? -total : total);
}
