/**
 * Policy paths that are Git URLs, as `kyverno apply` reads them (cmd/cli/kubectl-kyverno/source
 * IsGit, commands/apply loadPolicies, utils/common GetGitBranchOrPolicyPaths), and test paths that
 * are, as `kyverno test` reads them (the same rule; `bylaw test` then looks for test files in the
 * folder, commands/test/command.go loadTest):
 * - an `http://` or `https://` policy path is a Git repository: the URL's first two path segments
 *   name it (`https://github.com/kyverno/policies`);
 * - without `--git-branch` the rest of the path is the branch (`…/policies/main`), `main` when there
 *   is none, and every YAML of the repository is read; with `--git-branch` the rest is the folder to
 *   read (`https://github.com/kyverno/policies/pod-security/ --git-branch main`);
 * - Bylaw also reads `file://` URLs (Kyverno does not), for repositories on disk and for tests:
 *   the repository is the path up to its first segment ending in `.git`, else the whole path.
 * The repository is cloned shallowly (`git clone --depth 1 --single-branch`, `git` on the PATH)
 * into a temporary folder, read like a policy folder, and the folder is removed. Files are named
 * `<repository>@<branch>/<path>` in messages; a clone that fails names the URL and git's message.
 * A repository of policies also holds tests, resources and values files: as Kyverno skips the files
 * that are not policies, Bylaw leaves out the documents that are neither a policy nor a
 * PolicyException, and says how many in one warning (a local folder skips whole files: policy-folder.ts).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { loadPaths } from "../platform/files/index.js";
import type { LoadedDocument } from "../platform/yaml/index.js";
import { classify } from "../engine/index.js";
import { isGitUrl } from "./git-url.js";
import { isFolder, withoutNonPolicyFiles } from "./policy-folder.js";

export { isGitUrl } from "./git-url.js";

const CLONE_TIMEOUT_MS = 5 * 60_000;

interface GitSource {
  /** What `git clone` is given. */
  readonly repository: string;
  readonly branch: string;
  /** The folder inside the repository to read ("" for all of it). */
  readonly folder: string;
}

/** Where a Git URL points, by Kyverno's rule (see the file comment); an error says what a URL must look like. */
export function parseGitUrl(
  path: string,
  gitBranch: string | undefined,
): { ok: true; value: GitSource } | { ok: false; error: string } {
  let url: URL;
  try {
    url = new URL(path);
  } catch (e) {
    return { ok: false, error: `${path}: not a URL: ${(e as Error).message}` };
  }
  const segments = url.pathname
    .split("/")
    .filter((s) => s !== "")
    .map(decodeURIComponent);
  let repoSegments: number;
  if (url.protocol === "file:") {
    const git = segments.findIndex((s) => s.endsWith(".git"));
    repoSegments = git >= 0 ? git + 1 : segments.length;
  } else {
    if (segments.length < 2) {
      return {
        ok: false,
        error: `${path}: expected https://<host>/<owner>/<repository>/<branch> (without --git-branch) or https://<host>/<owner>/<repository>/<folder> (with --git-branch)`,
      };
    }
    repoSegments = 2;
  }
  const repoPath = "/" + segments.slice(0, repoSegments).join("/");
  const repository = url.protocol === "file:" ? `file://${repoPath}` : `${url.protocol}//${url.host}${repoPath}`;
  const rest = segments.slice(repoSegments).join("/");
  if (gitBranch !== undefined) return { ok: true, value: { repository, branch: gitBranch, folder: rest } };
  return { ok: true, value: { repository, branch: rest === "" ? "main" : rest, folder: "" } };
}

interface GitLoadOptions {
  readonly gitBranch?: string;
  readonly stdin?: () => Promise<string>;
  /** Where the temporary clones go (default: the OS temporary folder). */
  readonly tmpRoot?: string;
  /** `--username`/`--password` (kyverno apply): HTTP basic credentials for the clone. */
  readonly auth?: GitAuth;
}

interface GitAuth {
  readonly username: string;
  readonly password: string;
}

interface PolicyPaths {
  readonly docs: LoadedDocument[];
  readonly warnings: string[];
}

/** The documents at `paths`, a Git URL among them cloned and read like a folder. */
export async function loadPolicyPaths(paths: readonly string[], options: GitLoadOptions = {}): Promise<PolicyPaths> {
  const out: PolicyPaths = { docs: [], warnings: [] };
  for (const path of paths) {
    if (!isGitUrl(path)) {
      const docs = await loadPaths([path], options.stdin !== undefined ? { stdin: options.stdin } : {});
      const kept = isFolder(path) ? withoutNonPolicyFiles(path, docs) : { docs };
      if (kept.warning !== undefined) out.warnings.push(kept.warning);
      out.docs.push(...kept.docs);
      continue;
    }
    const docs = await loadGit(path, options);
    const kept = docs.filter((d) => d.value === undefined || classify(d.value).role !== "not-a-policy");
    const left = docs.length - kept.length;
    if (left > 0)
      out.warnings.push(
        `${path}: ${left} document${left === 1 ? " is" : "s are"} not a policy (tests, resources, values...) and ${left === 1 ? "is" : "are"} not read, as Kyverno skips them`,
      );
    out.docs.push(...kept);
  }
  return out;
}

async function loadGit(path: string, options: GitLoadOptions): Promise<LoadedDocument[]> {
  const failed = (error: string): LoadedDocument[] => [{ source: path, index: 0, error }];
  const clone = await cloneGitUrl(path, options.gitBranch, options.tmpRoot, options.auth);
  if (!clone.ok) return failed(`policy ${clone.error}`);
  try {
    return (await loadPaths([clone.value.folder])).map((d) => ({
      ...d,
      source: clone.value.rename(d.source),
      ...(d.error !== undefined ? { error: clone.value.rename(d.error) } : {}),
    }));
  } finally {
    await clone.value.remove();
  }
}

export interface GitClone {
  /** The folder the URL names, inside the temporary clone. */
  readonly folder: string;
  /** A text with the clone's temporary path replaced by `<repository>@<branch>`, for messages. */
  rename(text: string): string;
  /** Removes the temporary clone. */
  remove(): Promise<void>;
}

/** Clones the repository a Git URL names (Kyverno's rule, parseGitUrl) into a temporary folder; an error names the URL and git's message. */
export async function cloneGitUrl(
  path: string,
  gitBranch: string | undefined,
  tmpRoot?: string,
  auth?: GitAuth,
): Promise<{ ok: true; value: GitClone } | { ok: false; error: string }> {
  const parsed = parseGitUrl(path, gitBranch);
  if (!parsed.ok) return parsed;
  const { repository, branch, folder } = parsed.value;
  const dir = await mkdtemp(join(tmpRoot ?? tmpdir(), "bylaw-git-"));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  const fail = async (error: string): Promise<{ ok: false; error: string }> => {
    await remove();
    return { ok: false, error };
  };
  const cloned = await gitClone(repository, branch, dir, auth);
  if (cloned !== undefined) return fail(`${path}: cannot clone ${repository} (branch ${branch}): ${cloned}`);
  const target = resolve(dir, folder);
  if (target !== dir && !target.startsWith(dir + sep))
    return fail(`${path}: the folder ${JSON.stringify(folder)} is outside the repository`);
  const shown = `${repository}@${branch}`;
  return { ok: true, value: { folder: target, rename: (text) => text.split(dir).join(shown), remove } };
}

/** Clones one branch at depth 1; undefined when it worked, else git's message (or why git did not run). */
function gitClone(repository: string, branch: string, dir: string, auth?: GitAuth): Promise<string | undefined> {
  const args = ["clone", "--quiet", "--depth", "1", "--single-branch", "--branch", branch, "--", repository, dir];
  return new Promise((done) => {
    execFile(
      "git",
      args,
      {
        timeout: CLONE_TIMEOUT_MS,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...authConfig(process.env, auth) },
      },
      (error, _stdout, stderr) => {
        if (error === null) return done(undefined);
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
          return done("git is not on the PATH (bylaw runs git to read a Git URL)");
        const text = stderr
          .trim()
          .split("\n")
          .filter((l) => l.trim() !== "")
          .join("; ");
        done(text !== "" ? text : error.message);
      },
    );
  });
}

/**
 * Basic credentials as an `http.extraHeader` given through git's GIT_CONFIG_COUNT environment (after
 * any the environment already sets), so they appear neither in the URL, nor in git's messages,
 * nor in the process list.
 */
function authConfig(env: NodeJS.ProcessEnv, auth: GitAuth | undefined): Record<string, string> {
  if (auth === undefined) return {};
  const n = Number(env["GIT_CONFIG_COUNT"] ?? "0");
  const at = Number.isInteger(n) && n > 0 ? n : 0;
  const token = Buffer.from(`${auth.username}:${auth.password}`, "utf8").toString("base64");
  return {
    GIT_CONFIG_COUNT: String(at + 1),
    [`GIT_CONFIG_KEY_${at}`]: "http.extraHeader",
    [`GIT_CONFIG_VALUE_${at}`]: `Authorization: Basic ${token}`,
  };
}
