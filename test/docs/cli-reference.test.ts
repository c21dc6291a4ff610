/**
 * docs/cli/ holds the command reference `bylaw docs` writes from the commands' --help texts. It is
 * committed so that it reads on GitHub; this test fails when it differs from what `bylaw docs`
 * writes now, so a --help change cannot land without the pages.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { commandHelps, MAIN_HELP } from "../../src/cli/main.js";
import { markdownPages } from "../../src/cli/commands/docs/reference.js";
import { packageRoot } from "../support/npm-pack.js";

const REGENERATE = "run `npm run build && node bin/bylaw.js docs -o docs/cli` and commit docs/cli/";

test("docs/cli/ is what `bylaw docs` generates from the --help texts", async () => {
  const dir = join(packageRoot(), "docs", "cli");
  const pages = markdownPages(MAIN_HELP, await commandHelps());
  const committed = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".md")) : [];
  assert.deepEqual(
    committed.sort(),
    [...pages.keys()].sort(),
    `docs/cli/ has other pages than bylaw docs writes: ${REGENERATE}`,
  );
  for (const [file, text] of pages)
    assert.ok(
      readFileSync(join(dir, file), "utf8") === text,
      `docs/cli/${file} differs from its --help: ${REGENERATE}`,
    );
});
