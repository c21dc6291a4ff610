/**
 * The JMESPath field chain against its subexpression tree, on the representative expressions of
 * the jmespath bench: each evaluated from its compiled tree, with and without the chain closures.
 */
import { offlineEngine } from "../src/cli/offline/offline-engine.js";
import { EvalState } from "../src/engine/jmespath/eval-state.js";
import type { Evaluator } from "../src/engine/jmespath/evaluator.js";
import { DEFAULT_LIMITS } from "../src/engine/jmespath/limits.js";
import { bothWays } from "../test/support/jmespath-twins.js";
import { context, EXPRESSIONS } from "./jmespath-eval.js";
import type { PairedCase } from "./paired.js";

function evaluations(expressions: readonly string[]): readonly [() => void, () => void] {
  const ports = offlineEngine().env.ports;
  const data = context();
  const compiled = expressions.map((e) => bothWays(e, DEFAULT_LIMITS));
  const all = (pick: (c: (typeof compiled)[number]) => Evaluator) => () => {
    for (const c of compiled) pick(c)(data, new EvalState(ports, DEFAULT_LIMITS));
  };
  return [all((c) => c.chains), all((c) => c.tree)];
}

export const jmespathCases: Readonly<Record<string, PairedCase>> = {
  "jmespath-all": {
    label: `jmespath: the ${EXPRESSIONS.length} representative expressions, each once`,
    arms: ["field chains", "subexpression tree"],
    setup: () => evaluations(EXPRESSIONS),
  },
  "jmespath-name": {
    label: "jmespath: request.object.metadata.name",
    arms: ["field chain", "subexpression tree"],
    setup: () => evaluations(["request.object.metadata.name"]),
  },
};
