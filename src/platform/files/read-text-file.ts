import { readFile, stat } from "node:fs/promises";
import { err, ok, type Result } from "../../engine/index.js";
import { DEFAULT_LIMITS } from "../yaml/index.js";

/**
 * Read a UTF-8 text file. Failures are values: `not-found` ("no such file or directory: <path>"),
 * `is-directory`, `permission-denied`, `too-large` (over `maxBytes`, checked before reading),
 * `read-failed` for anything else.
 */
export async function readTextFile(path: string, maxBytes: number = DEFAULT_LIMITS.maxBytes): Promise<Result<string>> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) return err("is-directory", `is a directory, not a file: ${path}`);
    if (info.size > maxBytes) {
      return err("too-large", `${path}: file is too large (${info.size} bytes; the limit is ${maxBytes})`);
    }
    return ok(await readFile(path, "utf8"));
  } catch (e) {
    return fileError(e, path);
  }
}

/** Turn a Node file-system error into an EngineError value naming the path. */
export function fileError(e: unknown, path: string): { ok: false; error: { kind: string; message: string } } {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return err("not-found", `no such file or directory: ${path}`);
  if (code === "EACCES" || code === "EPERM") return err("permission-denied", `permission denied: ${path}`);
  if (code === "EISDIR") return err("is-directory", `is a directory, not a file: ${path}`);
  const message = e instanceof Error ? e.message : String(e);
  return err("read-failed", `cannot read ${path}: ${message}`);
}
