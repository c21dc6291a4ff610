/**
 * One `bylaw` command run in-process over files written to a fresh temporary folder, as the CLI
 * tests run it: each `$DIR` in an argument is that folder. Its exit code, stdout and stderr (lines
 * joined), and the folder.
 */
import { main } from "../../src/cli/main.js";
import { recordingIo } from "./fake-io.js";
import { tempTree } from "./temp-dir.js";

export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  readonly dir: string;
}

export async function runInTree(
  command: string,
  args: readonly string[],
  files: Record<string, string>,
  stdin = "",
): Promise<CliRun> {
  const dir = tempTree(files);
  const io = recordingIo(stdin);
  const code = await main([command, ...args.map((a) => a.replaceAll("$DIR", dir))], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n"), dir };
}
