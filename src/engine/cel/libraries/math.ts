/** cel-go ext.Math (right shifts are logical, as cel-go's): `math.greatest/least`, rounding, `abs`, `sign`, NaN/Inf tests, bit operations, `sqrt`. */
import { UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { CelFunctionError, namespace, type CelFunction, type CelLibrary } from "../library.js";
import { celCompare } from "./equal.js";

const NS = "bylaw.MathNamespace";
const INT64_MIN = -(1n << 63n);

function pick(args: unknown[], sign: number, name: string): unknown {
  const values = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  if (values.length === 0) throw new CelFunctionError(`math.@${name}(list) argument must not be empty`);
  let best = values[0];
  for (const v of values.slice(1)) {
    const c = celCompare(v, best);
    if (c === undefined) throw new CelFunctionError(`math.@${name}(list) argument must contain only numbers`);
    if (c * sign > 0) best = v;
  }
  return best;
}

function variadic(name: "greatest" | "least", sign: number): CelFunction[] {
  const out: CelFunction[] = [];
  for (let n = 1; n <= 6; n++) {
    const params = Array.from({ length: n }, () => "dyn").join(", ");
    out.push({
      signature: `${NS}.${name}(${params}): dyn`,
      handler: (_: unknown, ...args: unknown[]) => pick(args, sign, name),
    });
  }
  return out;
}

const double = (name: string, f: (x: number) => unknown): CelFunction => ({
  signature: `${NS}.${name}(double): ${typeof f(1) === "boolean" ? "bool" : "double"}`,
  handler: (_: unknown, x: number) => f(x),
});

function absInt(x: bigint): bigint {
  if (x === INT64_MIN) throw new CelFunctionError("integer overflow");
  return x < 0n ? -x : x;
}

function bits(name: string, f: (a: bigint, b: bigint) => bigint): CelFunction[] {
  return [
    {
      signature: `${NS}.${name}(int, int): int`,
      handler: (_: unknown, a: bigint, b: bigint) => BigInt.asIntN(64, f(a, b)),
    },
    {
      signature: `${NS}.${name}(uint, uint): uint`,
      handler: (_: unknown, a: UnsignedInt, b: UnsignedInt) => new UnsignedInt(BigInt.asUintN(64, f(a.value, b.value))),
    },
  ];
}

function shift(name: string, left: boolean): CelFunction[] {
  const check = (n: bigint): bigint => {
    if (n < 0n) throw new CelFunctionError(`math.${name}() negative offset: ${n}`);
    return n > 64n ? 64n : n;
  };
  return [
    {
      signature: `${NS}.${name}(int, int): int`,
      handler: (_: unknown, a: bigint, n: bigint) =>
        BigInt.asIntN(64, left ? a << check(n) : BigInt.asUintN(64, a) >> check(n)),
    },
    {
      signature: `${NS}.${name}(uint, int): uint`,
      handler: (_: unknown, a: UnsignedInt, n: bigint) =>
        new UnsignedInt(BigInt.asUintN(64, left ? a.value << check(n) : a.value >> check(n))),
    },
  ];
}

export function mathLibrary(): CelLibrary {
  return {
    name: "ext.Math",
    ...namespace("math", NS),
    functions: [
      ...variadic("greatest", 1),
      ...variadic("least", -1),
      double("ceil", Math.ceil),
      double("floor", Math.floor),
      double("round", (x) => (x < 0 ? -Math.round(-x) : Math.round(x))),
      double("trunc", Math.trunc),
      double("isNaN", Number.isNaN),
      double("isInf", (x) => x === Infinity || x === -Infinity),
      double("isFinite", Number.isFinite),
      double("sqrt", Math.sqrt),
      { signature: `${NS}.sqrt(int): double`, handler: (_: unknown, x: bigint) => Math.sqrt(Number(x)) },
      { signature: `${NS}.abs(int): int`, handler: (_: unknown, x: bigint) => absInt(x) },
      { signature: `${NS}.abs(double): double`, handler: (_: unknown, x: number) => Math.abs(x) },
      { signature: `${NS}.abs(uint): uint`, handler: (_: unknown, x: UnsignedInt) => x },
      { signature: `${NS}.sign(int): int`, handler: (_: unknown, x: bigint) => (x > 0n ? 1n : x < 0n ? -1n : 0n) },
      {
        signature: `${NS}.sign(double): double`,
        handler: (_: unknown, x: number) => (Number.isNaN(x) ? x : Math.sign(x)),
      },
      {
        signature: `${NS}.sign(uint): uint`,
        handler: (_: unknown, x: UnsignedInt) => new UnsignedInt(x.value > 0n ? 1n : 0n),
      },
      ...bits("bitAnd", (a, b) => a & b),
      ...bits("bitOr", (a, b) => a | b),
      ...bits("bitXor", (a, b) => a ^ b),
      { signature: `${NS}.bitNot(int): int`, handler: (_: unknown, a: bigint) => ~a },
      {
        signature: `${NS}.bitNot(uint): uint`,
        handler: (_: unknown, a: UnsignedInt) => new UnsignedInt(BigInt.asUintN(64, ~a.value)),
      },
      ...shift("bitShiftLeft", true),
      ...shift("bitShiftRight", false),
    ],
  };
}
