/**
 * The library example in docs/library.md type-checks against the package's published types and prints
 * exactly the output the page shows. `import … from "bylaw"` resolves through the package's own
 * `exports` (a module inside the package may import it by name), so the example runs as written.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { packageRoot } from "../support/npm-pack.js";
import { readmeExample } from "../support/readme-example.js";

const root = packageRoot();
const example = readmeExample(root, "library", "docs/library.md");
// Inside the package (dist/ is not shipped), so that "bylaw" resolves to this checkout's build.
const dir = mkdtempSync(join(root, "dist", "readme-example-"));

describe(
  "docs/library.md library example",
  { skip: existsSync(join(root, "dist", "src", "index.d.ts")) ? false : "dist/ is not built" },
  () => {
    after(() => rmSync(dir, { recursive: true, force: true }));

    test("type-checks against the package's types (strict, as the project compiles)", () => {
      const file = join(dir, "example.mts");
      writeFileSync(file, example.source);
      const program = ts.createProgram([file], {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      assert.deepEqual(problems, []);
    });

    test("runs and prints what docs/library.md says", () => {
      const file = join(dir, "example.mjs");
      writeFileSync(file, example.javascript);
      const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8", timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trimEnd(), example.output);
    });
  },
);
