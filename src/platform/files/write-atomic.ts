/**
 * Write files so that a reader never sees half of one: each goes to a temporary name beside its
 * target and is renamed into place; if any write fails, the temporaries are removed and the
 * targets already in place are left as they were before this call. Synchronous calls, as reads
 * (read-text-file.ts); the result stays a promise.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, basename } from "node:path";

// eslint-disable-next-line @typescript-eslint/require-await -- async on purpose: a failed write is a rejection, as with node:fs/promises
export async function writeFilesAtomically(files: ReadonlyMap<string, string>): Promise<void> {
  const staged: [string, string][] = [];
  try {
    for (const [path, text] of files) {
      mkdirSync(dirname(path), { recursive: true });
      const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
      writeFileSync(tmp, text, "utf8");
      staged.push([tmp, path]);
    }
  } catch (e) {
    for (const [tmp] of staged) rmSync(tmp, { force: true });
    throw e;
  }
  for (const [tmp, path] of staged) renameSync(tmp, path);
}
