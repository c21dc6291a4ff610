/**
 * What the size bound on built values (src/engine/cel/value-size.ts) costs an ordinary evaluation:
 * the mean hot time of the given expressions with the meter's `build` charging, then with it a
 * no-op (the twin without the bound). Run by `npm run bench:cel`.
 */
import { createCel } from "../src/engine/index.js";
import { CostMeter } from "../src/engine/cel/cost.js";

interface SizeBoundBench {
  readonly expressions: readonly string[];
  /** The resource as CEL values. */
  readonly object: unknown;
  /** µs per call of `f` over `rounds` calls. */
  readonly perCall: (rounds: number, f: () => void) => number;
}

export function benchSizeBound({ expressions, object, perCall }: SizeBoundBench): void {
  const cel = createCel();
  const activation = { object, oldObject: null, request: {}, params: null, namespaceObject: null, variables: {} };
  const programs = expressions.map((e) => {
    const p = cel.compile(e);
    if (!p.ok) throw new Error(p.error.message);
    return p.value;
  });
  const meanHot = (): number => {
    let sum = 0;
    for (const p of programs) {
      for (let w = 0; w < 20_000; w++) p.evaluate(activation, { remaining: 10_000_000 });
      sum += perCall(100_000, () => p.evaluate(activation, { remaining: 10_000_000 }));
    }
    return sum / programs.length;
  };
  const build = Object.getOwnPropertyDescriptor(CostMeter.prototype, "build");
  const withBound = meanHot();
  Object.defineProperty(CostMeter.prototype, "build", { value: () => undefined, configurable: true });
  const without = meanHot();
  if (build !== undefined) Object.defineProperty(CostMeter.prototype, "build", build);
  const delta = ((withBound - without) / without) * 100;
  console.log(
    `cel: size bound on an ordinary evaluation: mean hot ${withBound.toFixed(2)} µs with, ${without.toFixed(2)} µs without (${delta >= 0 ? "+" : ""}${delta.toFixed(1)}%)`,
  );
}
