import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", ".out/", "node_modules/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/engine/**/*.ts"],
    ignores: ["src/engine/**/*.test.ts", "src/engine/**/test-support.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["node:*", "fs", "path", "os", "crypto", "http", "https", "net", "dns", "child_process", "url"], message: "src/engine is pure: use a port from src/engine/ports.ts" },
            { group: ["../../platform/*", "../../cli/*", "../../kube/*", "../../server/*", "../../../platform/*", "../../../cli/*", "../../../kube/*"], message: "src/engine must not import outer layers" },
          ],
        },
      ],
      "no-restricted-globals": ["error", "process", "console", "fetch", "setTimeout", "setInterval"],
      "no-restricted-properties": [
        "error",
        { object: "Date", property: "now", message: "use the Clock port" },
        { object: "Math", property: "random", message: "use the Random port" },
      ],
    },
  },
);
