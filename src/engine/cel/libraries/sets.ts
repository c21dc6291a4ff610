/** cel-go ext.Sets: `sets.contains`, `sets.equivalent`, `sets.intersects` (CEL equality). */
import { namespace, type CelLibrary } from "../library.js";
import { celEqual } from "./equal.js";

const has = (l: unknown[], v: unknown): boolean => l.some((x) => celEqual(x, v));

export function setsLibrary(): CelLibrary {
  return {
    name: "ext.Sets",
    ...namespace("sets", "bylaw.SetsNamespace"),
    functions: [
      {
        signature: "bylaw.SetsNamespace.contains(list<dyn>, list<dyn>): bool",
        handler: (_: unknown, a: unknown[], b: unknown[]) => b.every((x) => has(a, x)),
      },
      {
        signature: "bylaw.SetsNamespace.equivalent(list<dyn>, list<dyn>): bool",
        handler: (_: unknown, a: unknown[], b: unknown[]) => b.every((x) => has(a, x)) && a.every((x) => has(b, x)),
      },
      {
        signature: "bylaw.SetsNamespace.intersects(list<dyn>, list<dyn>): bool",
        handler: (_: unknown, a: unknown[], b: unknown[]) => b.some((x) => has(a, x)),
      },
    ],
  };
}
