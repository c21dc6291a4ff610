/**
 * ESLint rule `bylaw/engine-front-door`: code outside src/engine imports the engine only through
 * src/engine/index.ts. Every relative import (`import`, `import type`, `export … from`, `import()`)
 * is resolved against the importing file, so the rule holds at any folder depth; the engine's own
 * modules are not checked (they import each other freely).
 */
import { dirname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const engineDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "engine");
const frontDoor = resolve(engineDir, "index.ts");

/** @type {import("eslint").Rule.RuleModule} */
export const engineFrontDoor = {
  meta: {
    type: "problem",
    docs: { description: "Import src/engine only through src/engine/index.ts" },
    messages: {
      deep: "{{spec}} reaches into the engine: import from src/engine/index.ts (the engine's front door) instead, and export the name there if it is missing",
    },
    schema: [],
  },
  create(context) {
    const file = resolve(context.filename);
    if (file.startsWith(engineDir + sep)) return {};
    /** @param {import("estree").Node | null | undefined} source */
    const check = (source) => {
      if (source?.type !== "Literal" || typeof source.value !== "string" || !source.value.startsWith(".")) return;
      const target = resolve(dirname(file), source.value.replace(/\.js$/, ".ts"));
      if (target.startsWith(engineDir + sep) && target !== frontDoor)
        context.report({ node: source, messageId: "deep", data: { spec: source.value } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export const bylawPlugin = { rules: { "engine-front-door": engineFrontDoor } };
