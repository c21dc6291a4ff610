/**
 * Lists: cel-go ext.Lists(v3) (`slice`, `flatten`, `distinct`, `reverse`, `sort`, `first`,
 * `last`, `lists.range`) and Kubernetes' lists library (`isSorted`, `sum`, `min`, `max`,
 * `indexOf`, `lastIndexOf`).
 */
import { Optional } from "@marcbachmann/cel-js";
import { CelFunctionError, namespace, type CelLibrary } from "../library.js";
import { celCompare, celEqual } from "./equal.js";

function slice(l: unknown[], start: bigint, end: bigint): unknown[] {
  if (start < 0n || end < 0n)
    throw new CelFunctionError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end)
    throw new CelFunctionError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (end > BigInt(l.length)) throw new CelFunctionError(`cannot slice(${start}, ${end}), list is length ${l.length}`);
  return l.slice(Number(start), Number(end));
}

function flatten(l: unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw new CelFunctionError("level must be non-negative");
  const out: unknown[] = [];
  for (const x of l) {
    if (Array.isArray(x) && depth > 0n) out.push(...flatten(x, depth - 1n));
    else out.push(x);
  }
  return out;
}

function distinct(l: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const x of l) if (!out.some((y) => celEqual(x, y))) out.push(x);
  return out;
}

function compareOrThrow(a: unknown, b: unknown): number {
  const c = celCompare(a, b);
  if (c === undefined) throw new CelFunctionError("list elements are not comparable");
  return c;
}

function sorted(l: unknown[]): unknown[] {
  return [...l].sort(compareOrThrow);
}

function extreme(l: unknown[], sign: number, name: string): unknown {
  if (l.length === 0) throw new CelFunctionError(`${name} called on an empty list`);
  return l.reduce((best, x) => (compareOrThrow(x, best) * sign > 0 ? x : best));
}

function sum(l: unknown[]): unknown {
  if (l.length === 0) return 0n;
  if (l.every((x) => typeof x === "bigint")) return l.reduce((a, b) => a + b, 0n);
  if (l.every((x) => typeof x === "number")) return l.reduce((a, b) => a + b, 0);
  throw new CelFunctionError("sum needs a list of int or of double");
}

export function listLibraries(): CelLibrary[] {
  return [
    {
      name: "ext.Lists(v3)",
      ...namespace("lists", "bylaw.ListsNamespace"),
      functions: [
        { signature: "list<A>.slice(int, int): list<A>", handler: slice },
        { signature: "list<dyn>.flatten(): list<dyn>", handler: (l: unknown[]) => flatten(l, 1n) },
        { signature: "list<dyn>.flatten(int): list<dyn>", handler: flatten },
        { signature: "list<A>.distinct(): list<A>", handler: distinct },
        { signature: "list<A>.reverse(): list<A>", handler: (l: unknown[]) => [...l].reverse() },
        { signature: "list<A>.sort(): list<A>", handler: sorted },
        {
          signature: "list<A>.first(): optional<A>",
          handler: (l: unknown[]) => (l.length > 0 ? Optional.of(l[0]) : Optional.none()),
        },
        {
          signature: "list<A>.last(): optional<A>",
          handler: (l: unknown[]) => (l.length > 0 ? Optional.of(l[l.length - 1]) : Optional.none()),
        },
        {
          signature: "bylaw.ListsNamespace.range(int): list<int>",
          handler: (_: unknown, n: bigint) => {
            if (n > 100_000n) throw new CelFunctionError(`lists.range(${n}) is too long`);
            return Array.from({ length: Math.max(0, Number(n)) }, (_x, i) => BigInt(i));
          },
        },
      ],
    },
    {
      name: "k8s.Lists",
      functions: [
        {
          signature: "list<A>.isSorted(): bool",
          handler: (l: unknown[]) => l.every((x, i) => i === 0 || compareOrThrow(l[i - 1], x) <= 0),
        },
        { signature: "list<A>.sum(): A", handler: sum },
        { signature: "list<A>.min(): A", handler: (l: unknown[]) => extreme(l, -1, "min") },
        { signature: "list<A>.max(): A", handler: (l: unknown[]) => extreme(l, 1, "max") },
        {
          signature: "list<A>.indexOf(A): int",
          handler: (l: unknown[], v: unknown) => BigInt(l.findIndex((x) => celEqual(x, v))),
        },
        {
          signature: "list<A>.lastIndexOf(A): int",
          handler: (l: unknown[], v: unknown) => BigInt(l.findLastIndex((x) => celEqual(x, v))),
        },
      ],
    },
  ];
}
