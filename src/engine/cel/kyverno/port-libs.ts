/**
 * Kyverno's CEL libraries that need the engine's clock, randomness or hashing (kyverno/sdk libs
 * time, random, hash), through the ports of the running evaluation: `time.now()`,
 * `time.truncate(timestamp, duration)`, `time.toCron(timestamp)`; `random()` and
 * `random(pattern)` (also `random.random`); `sha1`, `sha256`, `md5` (also `hash.sha1` …), hex.
 */
import { Duration } from "@marcbachmann/cel-js/evaluator";
import { randomFromPattern } from "../../jmespath/functions/kyverno/random.js";
import { CelFunctionError, namespace, type CelFunction, type CelLibrary } from "../library.js";
import { servicesFor, type ServiceSlot } from "./services.js";

const TS = "google.protobuf.Timestamp";
const DUR = "google.protobuf.Duration";
/** Seconds from Go's zero time (0001-01-01 UTC), which time.Truncate measures from, to the Unix epoch. */
const GO_ZERO_TO_UNIX = 62_135_596_800n;

/** Go's Time.Truncate: down to a multiple of `d` since the zero time; a non-positive `d` changes nothing. */
function truncate(t: Date, d: Duration): Date {
  const step = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  if (step <= 0n) return t;
  const ns = (BigInt(t.getTime()) + GO_ZERO_TO_UNIX * 1000n) * 1_000_000n;
  const down = ns - (((ns % step) + step) % step);
  return new Date(Number(down / 1_000_000n - GO_ZERO_TO_UNIX * 1000n));
}

/** `minute hour day month weekday` of the timestamp (UTC), as Kyverno's toCron. */
function toCron(t: Date): string {
  return `${t.getUTCMinutes()} ${t.getUTCHours()} ${t.getUTCDate()} ${t.getUTCMonth() + 1} ${t.getUTCDay()}`;
}

function timeLibrary(slot: ServiceSlot): CelLibrary {
  const NS = "kyverno.TimeNamespace";
  return {
    name: "kyverno.time",
    ...namespace("time", NS),
    functions: [
      {
        signature: `${NS}.now(): ${TS}`,
        handler: () => new Date(servicesFor(slot, "time.now").ports.clock.nowMillis()),
      },
      {
        signature: `${NS}.truncate(${TS}, ${DUR}): ${TS}`,
        handler: (_: unknown, t: Date, d: Duration) => truncate(t, d),
      },
      { signature: `${NS}.toCron(${TS}): string`, handler: (_: unknown, t: Date) => toCron(t) },
    ],
  };
}

function randomLibrary(slot: ServiceSlot): CelLibrary {
  const NS = "kyverno.RandomNamespace";
  const generate = (pattern: string): string => {
    const r = randomFromPattern(pattern, servicesFor(slot, "random").ports.random);
    if (typeof r !== "string") throw new CelFunctionError(r.error);
    return r;
  };
  return {
    name: "kyverno.random",
    ...namespace("random", NS),
    functions: [
      { signature: "random(): string", handler: () => generate("[0-9a-z]{8}") },
      { signature: "random(string): string", handler: generate },
      { signature: `${NS}.random(): string`, handler: () => generate("[0-9a-z]{8}") },
      { signature: `${NS}.random(string): string`, handler: (_: unknown, p: string) => generate(p) },
    ],
  };
}

function hashLibrary(slot: ServiceSlot): CelLibrary {
  const NS = "kyverno.HashNamespace";
  const fns: CelFunction[] = [];
  for (const [name, method] of [
    ["sha1", "sha1Hex"],
    ["sha256", "sha256Hex"],
    ["md5", "md5Hex"],
  ] as const) {
    const run = (s: string): string => servicesFor(slot, name).ports.hasher[method](s);
    fns.push(
      { signature: `${name}(string): string`, handler: run },
      { signature: `${NS}.${name}(string): string`, handler: (_: unknown, s: string) => run(s) },
    );
  }
  return { name: "kyverno.hash", ...namespace("hash", NS), functions: fns };
}

export function portLibraries(slot: ServiceSlot): CelLibrary[] {
  return [timeLibrary(slot), randomLibrary(slot), hashLibrary(slot)];
}
