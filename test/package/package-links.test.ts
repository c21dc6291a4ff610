/**
 * package.json's repository, bugs and homepage (what npm shows) name one project, the one the
 * image name (`ghcr.io/<owner>/<name>` in the Dockerfile, the chart and deploy/) and the README use:
 * none of them may drift on its own.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../support/npm-pack.js";

const root = packageRoot();
const read = (p: string): string => readFileSync(join(root, p), "utf8");

test("repository, bugs and homepage name the project the image and the README name", () => {
  const pkg = JSON.parse(read("package.json")) as {
    repository?: { type?: string; url?: string };
    bugs?: { url?: string };
    homepage?: string;
  };
  const m = /^git\+https:\/\/github\.com\/([^/]+)\/([^/.]+)\.git$/.exec(pkg.repository?.url ?? "");
  assert.ok(m !== null, `repository.url ${pkg.repository?.url}`);
  assert.equal(pkg.repository?.type, "git");
  const [, owner, name] = m;
  const project = `https://github.com/${owner}/${name}`;
  assert.equal(pkg.bugs?.url, `${project}/issues`);
  assert.equal(pkg.homepage, `${project}#readme`);
  const image = `ghcr.io/${owner}/${name}`;
  for (const file of ["Dockerfile", "charts/bylaw/values.yaml", "deploy/base/deployment.yaml"])
    assert.ok(read(file).includes(image), `${file} names ${image}`);
  // The README names no other project URL for Bylaw itself.
  const others = [...read("README.md").matchAll(/https:\/\/github\.com\/([^/\s)]+)\/([^/\s)#]+)/g)].filter(
    ([, o, n]) => /bylaw/i.test(`${o}/${n}`) && `${o}/${n}` !== `${owner}/${name}`,
  );
  assert.deepEqual(
    others.map((x) => x[0]),
    [],
  );
});
