/** Deterministic ports for testing the functions: fixed clock, seeded random, tagged hashes. */
import type { JsonValue } from "../../src/engine/api/json.js";
import { err, ok } from "../../src/engine/api/result.js";
import type { EnginePorts } from "../../src/engine/ports.js";
import type { FunctionContext, FunctionDef } from "../../src/engine/jmespath/types.js";

export interface FakeOptions {
  /** Milliseconds since the epoch; 2024-02-29T12:34:56.789Z by default. */
  readonly nowMillis?: number;
  readonly seed?: number;
  /** Host name → whether it is external; unknown names fail to resolve. */
  readonly hosts?: Readonly<Record<string, boolean>>;
}

export function fakeContext(options: FakeOptions = {}): FunctionContext {
  let state = options.seed ?? 42;
  const hosts = options.hosts ?? {};
  const ports: EnginePorts = {
    clock: { nowMillis: () => options.nowMillis ?? Date.UTC(2024, 1, 29, 12, 34, 56, 789) },
    random: {
      // mulberry32
      next: () => {
        state = (state + 0x6d2b79f5) | 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      },
    },
    hasher: {
      sha256Hex: (d) => `sha256(${d})`,
      sha1Hex: (d) => `sha1(${d})`,
      md5Hex: (d) => `md5(${d})`,
    },
    context: {
      canLoad: () => false,
      configMap: () => err("test", "no config maps"),
      apiCall: () => err("test", "no api calls"),
      globalReference: () => err("test", "no global context"),
      imageData: () => err("test", "no image data"),
    },
    hosts: {
      isExternalHost: (host) => {
        const v = hosts[host];
        return v === undefined ? err("dns", `lookup ${host}: no such host`) : ok(v);
      },
    },
  };
  return { ports };
}

/** Finds a function by name in a family (fails loudly in tests when missing). */
export function fn(defs: readonly FunctionDef[], name: string): FunctionDef {
  const def = defs.find((d) => d.name === name);
  if (def === undefined) throw new Error(`no function ${name}`);
  return def;
}

/** Calls a function with JSON arguments. */
export function call(
  defs: readonly FunctionDef[],
  name: string,
  args: readonly JsonValue[],
  ctx = fakeContext(),
): JsonValue {
  return fn(defs, name).call(args, ctx);
}
