/**
 * Compile a policy document where a policy that throws must not stop the others (`bylaw serve`'s
 * folder and cluster sources): the exception becomes the policy's one problem.
 */
import { type CompileOutcome, type Engine, type JsonValue, problem } from "../../engine/index.js";

export function compileGuarded(engine: Engine, doc: JsonValue): CompileOutcome {
  try {
    return engine.compile(doc);
  } catch (e) {
    return {
      ok: false,
      problems: [problem("", `cannot compile the policy: ${e instanceof Error ? e.message : String(e)}`)],
    };
  }
}
