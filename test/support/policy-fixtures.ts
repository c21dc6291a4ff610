/**
 * The policies many tests share, one a file in test/fixtures/policies/<name>.yaml (named for the
 * policy), read from the source tree: tests compile to dist/, fixtures stay where they are written.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "./npm-pack.js";

/** The path of a shared policy fixture, for tests that hand the CLI a file. */
export function policyFixturePath(name: string): string {
  return join(packageRoot(), "test", "fixtures", "policies", `${name}.yaml`);
}

/** The YAML text of a shared policy fixture. */
export function policyFixture(name: string): string {
  return readFileSync(policyFixturePath(name), "utf8");
}
