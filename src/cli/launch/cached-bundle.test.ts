import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { CachedScripts, compileCacheDir } from "./cached-bundle.js";

const BUILD = "0123456789abcdef";
const MAIN = 'const b = require("./b.js");\nexports.run = () => b.twice(21);\nexports.url = __bylaw_import_meta_url;\n';
const B = "let loads = (globalThis.__bLoads ?? 0) + 1;\nglobalThis.__bLoads = loads;\nexports.twice = (n) => n * 2;\n";
/** A script's cache file: its name, size and modification time. */
const cacheName = (name: string, text: string, dir = scriptsDir): string =>
  `${name}.${Buffer.byteLength(text)}.${Math.trunc(statSync(join(dir, name)).mtimeMs)}.v8cache`;
let scriptsDir = "";

describe("compileCacheDir", () => {
  it("is BYLAW_COMPILE_CACHE, else under XDG_CACHE_HOME, else under ~/.cache; off turns it off", () => {
    assert.equal(compileCacheDir({ BYLAW_COMPILE_CACHE: "/c" }), "/c");
    assert.equal(compileCacheDir({ BYLAW_COMPILE_CACHE: "off" }), undefined);
    assert.equal(compileCacheDir({ BYLAW_COMPILE_CACHE: "0" }), undefined);
    assert.equal(compileCacheDir({ XDG_CACHE_HOME: "/x" }), "/x/bylaw/compile-cache");
    assert.equal(
      compileCacheDir({}, () => "/home/u"),
      "/home/u/.cache/bylaw/compile-cache",
    );
  });
});

describe("CachedScripts", () => {
  let dir: string;
  let scripts: string;
  let cache: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "bylaw-cached-bundle-"));
    scripts = join(dir, "cjs");
    scriptsDir = scripts;
    cache = join(dir, "cache");
    mkdirSync(scripts);
    // Two chunks as tools/bundle.mjs writes them: CommonJS, one requiring the other, import.meta.url a parameter.
    writeFileSync(join(scripts, "main.js"), MAIN);
    writeFileSync(join(scripts, "b.js"), B);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const open = (env: Record<string, string> = { BYLAW_COMPILE_CACHE: cache }): CachedScripts =>
    new CachedScripts({ dir: scripts, publicDir: dir, buildId: BUILD, env });
  const cacheFiles = (): string[] => readdirSync(join(cache, `${BUILD}.${process.version}.${process.arch}`)).sort();

  it("runs the scripts, each once, with import.meta.url naming the public folder", () => {
    const s = open();
    const main = s.require("./main.js") as { run: () => number; url: string };
    assert.equal(main.run(), 42);
    assert.equal(main.url, `file://${join(dir, "main.js")}`);
    assert.equal(s.require("./b.js"), s.require("./b.js"));
    assert.deepEqual(s.cacheUse(), { "b.js": "absent", "main.js": "absent" });
  });

  it("writes a cache per script after the run, and the next run compiles from it", () => {
    const first = open();
    first.require("./main.js");
    first.saveCaches();
    assert.deepEqual(cacheFiles(), [cacheName("b.js", B), cacheName("main.js", MAIN)]);
    for (const f of cacheFiles())
      assert.equal(statSync(join(cache, `${BUILD}.${process.version}.${process.arch}`, f)).mode & 0o777, 0o600);
    const second = open();
    assert.equal((second.require("./main.js") as { run: () => number }).run(), 42);
    assert.deepEqual(second.cacheUse(), { "b.js": "used", "main.js": "used" });
  });

  it("a changed script is compiled afresh: its size and modification time name another cache file", () => {
    const first = open();
    first.require("./main.js");
    first.saveCaches();
    // Same size, other content: V8 would take the old cache (it checks the length only) and run the old code.
    const edited = B.replace("n * 2", "n * 3");
    writeFileSync(join(scripts, "b.js"), edited);
    const later = new Date(Date.now() + 5000);
    utimesSync(join(scripts, "b.js"), later, later);
    const changed = open();
    assert.equal((changed.require("./main.js") as { run: () => number }).run(), 63);
    assert.deepEqual(changed.cacheUse(), { "b.js": "absent", "main.js": "used" });
  });

  it("a cache file V8 refuses (not made for this script) is ignored, and the script compiled", () => {
    const text = "exports.answer = 'refused-cache-test';\n";
    writeFileSync(join(scripts, "c.js"), text);
    const folder = join(cache, `${BUILD}.${process.version}.${process.arch}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, cacheName("c.js", text)), Buffer.alloc(64, 7), { mode: 0o600 });
    const s = open();
    assert.equal(s.require("./c.js")["answer"], "refused-cache-test");
    assert.equal(s.cacheUse()["c.js"], "rejected");
  });

  it("ignores a cache file others may write, and caching off writes nothing", () => {
    const first = open();
    first.require("./main.js");
    first.saveCaches();
    chmodSync(join(cache, `${BUILD}.${process.version}.${process.arch}`, cacheName("b.js", B)), 0o666);
    const second = open();
    second.require("./main.js");
    assert.equal(second.cacheUse()["b.js"], "absent");

    rmSync(cache, { recursive: true, force: true });
    const off = open({ BYLAW_COMPILE_CACHE: "off" });
    off.require("./main.js");
    off.saveCaches();
    assert.deepEqual(off.cacheUse(), { "b.js": "off", "main.js": "off" });
    assert.equal(existsSync(cache), false);
  });

  it("an unwritable cache folder never fails the run", () => {
    writeFileSync(cache, "a file where the folder should be");
    const s = open();
    assert.equal((s.require("./main.js") as { run: () => number }).run(), 42);
    assert.doesNotThrow(() => s.saveCaches());
  });

  it("removes other builds' cache folders untouched for a day, and nothing else", () => {
    mkdirSync(cache);
    const old = join(cache, `fedcba9876543210.${process.version}.${process.arch}`);
    const recent = join(cache, `aaaaaaaaaaaaaaaa.${process.version}.${process.arch}`);
    const other = join(cache, "notes");
    for (const d of [old, recent, other]) mkdirSync(d);
    const dayAgo = new Date(Date.now() - 25 * 3600 * 1000);
    utimesSync(old, dayAgo, dayAgo);
    utimesSync(other, dayAgo, dayAgo);
    const s = open();
    s.require("./main.js");
    s.saveCaches();
    assert.equal(existsSync(old), false);
    assert.equal(existsSync(recent), true);
    assert.equal(existsSync(other), true);
  });
});
