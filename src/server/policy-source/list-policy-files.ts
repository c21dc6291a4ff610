/**
 * The policy files of a directory tree, and the directories to watch for changes.
 *
 * Hidden entries (names starting with `.`) are skipped. This matters for a Kubernetes ConfigMap
 * volume: the kubelet keeps the data in a timestamped `..2024_01_01_00_00_00.123` directory,
 * points the `..data` symlink at it, and exposes each key as `key -> ..data/key`. Reading the
 * hidden directory too would load every policy twice. Symlinks to files are followed (that is
 * how the keys appear); symlinks to directories are not, so a link cycle cannot loop; a dangling
 * symlink (a key mid-removal) is ignored.
 */
import type { Stats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isDocumentFile } from "../../platform/files/index.js";

interface PolicyTree {
  /** Document files, in lexical walk order. */
  readonly files: readonly string[];
  /** The root and every non-hidden sub-directory. */
  readonly dirs: readonly string[];
}

type TreeResult = { ok: true; tree: PolicyTree } | { ok: false; message: string };

export async function listPolicyTree(root: string): Promise<TreeResult> {
  const files: string[] = [];
  const dirs: string[] = [];
  try {
    const info = await stat(root);
    if (!info.isDirectory()) return { ok: false, message: `not a directory: ${root}` };
    await walk(root, files, dirs);
  } catch (e) {
    return { ok: false, message: describeFsError(e, root) };
  }
  return { ok: true, tree: { files, dirs } };
}

async function walk(dir: string, files: string[], dirs: string[]): Promise<void> {
  dirs.push(dir);
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, files, dirs);
    else if (isDocumentFile(entry.name) && (entry.isFile() || (entry.isSymbolicLink() && (await isFile(path)))))
      files.push(path);
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await statOrUndefined(path))?.isFile() ?? false;
}

export async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

/**
 * A cheap fingerprint of the tree for polling: each file's path, device, inode, size and
 * modification time (through symlinks, so a ConfigMap `..data` swap changes it).
 */
export async function treeSignature(root: string): Promise<string> {
  const listed = await listPolicyTree(root);
  if (!listed.ok) return `error:${listed.message}`;
  const parts: string[] = [];
  for (const file of listed.tree.files) parts.push(`${file}\t${statSignature(await statOrUndefined(file))}`);
  return `${listed.tree.dirs.join("\n")}\n--\n${parts.join("\n")}`;
}

export function statSignature(info: Stats | undefined): string {
  return info === undefined ? "missing" : `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`;
}

function describeFsError(e: unknown, path: string): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return `no such directory: ${path}`;
  if (code === "EACCES" || code === "EPERM") return `permission denied: ${path}`;
  return `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`;
}
