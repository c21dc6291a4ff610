/**
 * Every relative link in README.md and docs/**\/*.md points at a file or folder that exists, and a
 * `#anchor` into a Markdown file names one of its headings (GitHub's slugs).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { packageRoot } from "../support/npm-pack.js";
import { headingSlugs, markdownLinks } from "../support/markdown-links.js";

const root = packageRoot();

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

const files = [join(root, "README.md"), ...markdownFiles(join(root, "docs"))];

test("every relative link in README.md and docs/ resolves, anchors included", () => {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const link of markdownLinks(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith("//")) continue;
      const [path = "", anchor] = link.split("#", 2);
      const target = path === "" ? file : join(dirname(file), decodeURIComponent(path));
      const where = `${relative(root, file)}: ${link}`;
      if (!existsSync(target)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor !== undefined && anchor !== "" && target.endsWith(".md")) {
        if (!headingSlugs(readFileSync(target, "utf8")).has(anchor)) broken.push(`${where} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test("the README links every page under docs/", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const linked = new Set(markdownLinks(readme).map((l) => l.split("#")[0]));
  const pages = readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md"));
  assert.deepEqual(
    pages.filter((p) => !linked.has(`docs/${p}`)),
    [],
  );
});
