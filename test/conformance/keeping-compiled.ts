/** An engine for the corpus tests that also hands each policy it compiles to `keep`. */
import type { CompiledPolicy, Engine } from "../../src/engine/index.js";

export function keepingCompiled(engine: Engine, keep: (policy: CompiledPolicy) => void): Engine {
  return {
    ...engine,
    compile: (doc, options) => {
      const outcome = engine.compile(doc, options);
      if (outcome.ok) keep(outcome.policy);
      return outcome;
    },
  };
}
