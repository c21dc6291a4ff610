/**
 * The lint rule `bylaw/engine-front-door`, run through the repository's own ESLint config: code
 * outside src/engine that imports an engine module other than src/engine/index.ts fails lint.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
// The probes below are no files of the TypeScript project, so they are linted without type
// information (the front-door rule needs none; the type-aware rules would refuse to parse them).
const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

/** The front-door findings for `code` linted as if it were the file at `path` (from the repository root). */
async function findings(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  assert.ok(result, `ESLint linted ${path}`);
  assert.deepEqual(
    result.messages.filter((m) => m.fatal === true),
    [],
    "the probe parses",
  );
  return result.messages.filter((m) => m.ruleId === "bylaw/engine-front-door").map((m) => m.message);
}

describe("lint: the engine's front door", () => {
  test("a deep import from the CLI fails, naming the module and the front door", async () => {
    const found = await findings(
      "src/cli/probe.ts",
      'import { isObject } from "../engine/api/json.js";\nexport const f = isObject;\n',
    );
    assert.equal(found.length, 1);
    assert.match(
      found[0] ?? "",
      /\.\.\/engine\/api\/json\.js reaches into the engine: import from src\/engine\/index\.ts/,
    );
  });

  test("the front door itself passes", async () => {
    assert.deepEqual(
      await findings(
        "src/cli/probe.ts",
        'import { isObject } from "../engine/index.js";\nexport const f = isObject;\n',
      ),
      [],
    );
  });

  test("type imports, re-exports and dynamic imports count, at any depth", async () => {
    const code = [
      'import type { EngineRequest } from "../../engine/pipeline/types.js";',
      'export { effectiveAction } from "../../engine/pipeline/failure-action.js";',
      'export * from "../../engine/api/json.js";',
      'export const later = (): Promise<unknown> => import("../../engine/engine.js");',
      "export type R = EngineRequest;",
      "",
    ].join("\n");
    assert.equal((await findings("src/server/admission/probe.ts", code)).length, 4);
  });

  test("tests and benchmarks outside src/engine follow it too", async () => {
    assert.equal(
      (
        await findings(
          "src/server/http/probe.test.ts",
          'import type { Engine } from "../../engine/engine.js";\nexport type E = Engine;\n',
        )
      ).length,
      1,
    );
    assert.equal(
      (
        await findings(
          "test/e2e/probe.test.ts",
          'import type { Engine } from "../../src/engine/engine.js";\nexport type E = Engine;\n',
        )
      ).length,
      1,
    );
    assert.equal(
      (
        await findings(
          "bench/probe.ts",
          'import type { Engine } from "../src/engine/engine.js";\nexport type E = Engine;\n',
        )
      ).length,
      1,
    );
    assert.equal(
      (
        await findings(
          "src/library/probe.ts",
          'import type { Engine } from "../engine/engine.js";\nexport type E = Engine;\n',
        )
      ).length,
      1,
    );
  });

  test("the engine's own modules, the named helpers of its unit tests and the twins benchmarks may import inside it", async () => {
    assert.deepEqual(
      await findings(
        "src/engine/pipeline/probe.ts",
        'import { isObject } from "../api/json.js";\nexport const f = isObject;\n',
      ),
      [],
    );
    assert.deepEqual(
      await findings(
        "test/support/fake-jmespath.ts",
        'import type { JmesPathEngine } from "../../src/engine/jmespath/types.js";\nexport type J = JmesPathEngine;\n',
      ),
      [],
    );
    assert.deepEqual(
      await findings(
        "bench/twins-probe.ts",
        'import type { CompiledConditions } from "../src/engine/conditions/compile.js";\nexport type C = CompiledConditions;\n',
      ),
      [],
    );
  });
});
