/**
 * Half-written files must not be loaded. A multi-document file written slowly parses fine when cut
 * after its first document, and would be served with only that one. So a tree is read only once
 * it has been still for the settle window: when something in it (a file, or a folder, whose
 * modification time changes when an entry is added, removed or renamed) changed less than the
 * window ago, its signature (device, inode, size and modification time of every entry) is taken,
 * the window is waited out, and the tree is read only if the signature is unchanged; the caller
 * then checks it once more after reading, so that a write during the read is caught too.
 *
 * A Kubernetes ConfigMap volume is always whole: the kubelet writes a new hidden folder and swaps
 * the `..data` symlink in one rename, so its files are still by the time they are read.
 */
import { statOrUndefined } from "./list-policy-files.js";

interface TreeStat {
  /** Device, inode, size and mtime of every path, in order ("missing" for a vanished one). */
  readonly signature: string;
  /** The newest modification time among them, ms since the epoch. */
  readonly newest: number;
}

export async function statTree(paths: readonly string[]): Promise<TreeStat> {
  const parts: string[] = [];
  let newest = 0;
  for (const path of paths) {
    const info = await statOrUndefined(path);
    if (info === undefined) {
      parts.push(`${path}\tmissing`);
      continue;
    }
    parts.push(`${path}\t${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`);
    newest = Math.max(newest, info.mtimeMs);
  }
  return { signature: parts.join("\n"), newest };
}

/**
 * The tree's signature once it has been still for `settleMs`, or undefined if it changed within
 * the window (the caller tries again later). A modification time in the future (a copied file,
 * a skewed clock) cannot be aged, so the window is always waited out then.
 */
export async function settledTree(
  paths: readonly string[],
  settleMs: number,
  now: () => number = Date.now,
): Promise<string | undefined> {
  const first = await statTree(paths);
  const age = now() - first.newest;
  if (settleMs <= 0 || age >= settleMs) return first.signature;
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const second = await statTree(paths);
  return second.signature === first.signature ? first.signature : undefined;
}
