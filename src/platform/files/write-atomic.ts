/**
 * Write files so that a reader never sees half of one: each goes to a temporary name beside its
 * target and is renamed into place; if any write fails, the temporaries are removed and the
 * targets already in place are left as they were before this call.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, basename } from "node:path";

export async function writeFilesAtomically(files: ReadonlyMap<string, string>): Promise<void> {
  const staged: [string, string][] = [];
  try {
    for (const [path, text] of files) {
      await mkdir(dirname(path), { recursive: true });
      const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
      await writeFile(tmp, text, "utf8");
      staged.push([tmp, path]);
    }
  } catch (e) {
    await Promise.all(staged.map(([tmp]) => rm(tmp, { force: true })));
    throw e;
  }
  for (const [tmp, path] of staged) await rename(tmp, path);
}
