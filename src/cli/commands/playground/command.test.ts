import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runInTree } from "../../../../test/support/cli-run.js";
import { PLAYGROUND_BUNDLE } from "../../../playground/playground-bundle.js";

const built = PLAYGROUND_BUNDLE !== undefined;

test(
  "--out DIR writes the page, the engine's script and the style sheet, and leaves other files alone",
  { skip: !built && "the playground bundle is not built (npm run build)" },
  async () => {
    const run = await runInTree("playground", ["--out", "$DIR/site"], { "site/keep.txt": "mine" });
    assert.equal(run.code, 0, run.err);
    const site = join(run.dir, "site");
    assert.deepEqual(readdirSync(site).sort(), ["index.html", "keep.txt", "playground.css", "playground.js"]);
    const page = readFileSync(join(site, "index.html"), "utf8");
    assert.match(page, /<script defer src="playground\.js"><\/script>/, "beside the page, so it opens from disk too");
    assert.match(page, /http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self'/);
    assert.equal(readFileSync(join(site, "playground.js"), "utf8"), PLAYGROUND_BUNDLE?.script);
    assert.equal(readFileSync(join(site, "keep.txt"), "utf8"), "mine");
    assert.match(run.err, /wrote index\.html, playground\.js and playground\.css to .*site/);
  },
);

test("no --out, an unknown flag: exit 2 with one line saying what, and where help is", async () => {
  const none = await runInTree("playground", [], {});
  assert.equal(none.code, 2);
  assert.match(none.err, /--out DIR is required/);
  assert.match(none.err, /bylaw playground --help/);
  const unknown = await runInTree("playground", ["--outt", "x"], {});
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /--outt/);
});

test(
  "a folder that cannot be written: exit 1 naming it, and no half-written site",
  { skip: !built && "the playground bundle is not built (npm run build)" },
  async () => {
    const run = await runInTree("playground", ["--out", "$DIR/file/site"], { file: "a file, not a folder" });
    assert.equal(run.code, 1);
    assert.match(run.err, /cannot write the playground to .*file\/site/);
    writeFileSync(join(run.dir, "probe"), "");
    assert.deepEqual(readdirSync(run.dir).sort(), ["file", "probe"]);
  },
);

test("--help teaches what the site is and what it cannot do", async () => {
  const run = await runInTree("playground", ["--help"], {});
  assert.equal(run.code, 0);
  assert.match(run.out, /Usage: bylaw playground --out DIR/);
  assert.match(run.out, /never sends to a\s+server/);
  assert.match(run.out, /error result naming/);
});
