/**
 * `bylaw test URL [--git-branch BRANCH]`, as `kyverno test` reads a Git repository: the URL is
 * cloned (git-source.ts, Kyverno's rule for the repository, branch and folder) and searched for
 * test files like a local folder. The clones live until the run ends; in output their temporary
 * paths read `<repository>@<branch>`.
 */
import type { GitClone } from "../../git-source.js";
import { isGitUrl } from "../../git-url.js";

export interface TestPaths {
  /** Local paths, the Git URLs replaced by their cloned folders. */
  readonly paths: string[];
  /** Whether any PATH was a Git URL that was cloned. */
  readonly cloned: boolean;
  /** URLs that could not be cloned, each with why. */
  readonly errors: string[];
  /** Replaces the clones' temporary paths in a text. */
  rename(text: string): string;
  /** Removes the clones. */
  remove(): Promise<void>;
}

export async function cloneTestPaths(paths: readonly string[], gitBranch: string | undefined): Promise<TestPaths> {
  const clones: GitClone[] = [];
  const local: string[] = [];
  const errors: string[] = [];
  for (const p of paths) {
    if (!isGitUrl(p)) {
      local.push(p);
      continue;
    }
    // Loaded only for a URL: it brings node:child_process.
    const { cloneGitUrl } = await import("../../git-source.js");
    const clone = await cloneGitUrl(p, gitBranch);
    if (clone.ok) {
      clones.push(clone.value);
      local.push(clone.value.folder);
    } else errors.push(clone.error);
  }
  return {
    paths: local,
    cloned: clones.length > 0,
    errors,
    rename: (text) => clones.reduce((t, c) => c.rename(t), text),
    remove: async () => {
      await Promise.all(clones.map((c) => c.remove()));
    },
  };
}
