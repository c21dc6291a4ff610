/** `bylaw docs [-o DIR]`: write Markdown reference pages for the commands. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Io } from "../../io.js";
import { type CommandHelp, markdownPages } from "./reference.js";

export const DOCS_HELP = `Usage: bylaw docs [-o DIR]

Write Markdown reference pages for the commands, from their --help texts: bylaw.md (the index)
and one bylaw_<command>.md per command, with its usage, flags, exit codes and examples.

Flags:
  -o, --output DIR   the folder to write to (default docs/cli; created if missing)
  -h, --help         show this help

Exit codes: 0 written; 1 a page could not be written; 2 bad usage; 3 internal error (a bug in Bylaw).

Example:
  bylaw docs -o site/reference`;

/** `mainHelp` and `commands` come from the caller (main), so this module does not import main. */
export async function docsCommand(
  args: string[],
  io: Io,
  mainHelp: string,
  commands: readonly CommandHelp[],
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      output: { type: "string", short: "o", default: "docs/cli" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.out(DOCS_HELP);
    return 0;
  }
  const pages = markdownPages(mainHelp, commands);
  try {
    await mkdir(values.output, { recursive: true });
    for (const [file, text] of pages) await writeFile(join(values.output, file), text);
  } catch (e) {
    io.err(`bylaw docs: cannot write to ${values.output}: ${(e as Error).message}`);
    return 1;
  }
  io.err(`bylaw docs: wrote ${pages.size} pages to ${values.output}`);
  return 0;
}
