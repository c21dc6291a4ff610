/**
 * Whether a PATH argument is a Git URL (`https://`, `http://` or `file://`), which `bylaw apply` and
 * `bylaw test` clone (git-source.ts). Apart from git-source.ts so that a run without one never loads
 * node:child_process.
 */
const GIT_URL = /^(https?|file):\/\//i;

export function isGitUrl(path: string): boolean {
  return GIT_URL.test(path);
}
