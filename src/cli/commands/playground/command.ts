/** `bylaw playground --out DIR`: write the playground as a static site (docs/playground.md). */
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Io } from "../../io.js";
import { writeFilesAtomically } from "../../../platform/files/index.js";
import { PLAYGROUND_BUNDLE } from "../../../playground/playground-bundle.js";
import { playgroundPage } from "../../../playground/playground-page.js";

export const PLAYGROUND_HELP = `Usage: bylaw playground --out DIR

Write the playground as a static site: paste policies, resources and a values file, and see the
results, patches, generated objects and why each result is what it is, as \`bylaw apply\` gives
them. The policies run in the browser, by Bylaw's own engine: the site makes no request, so it
can be served by any static file server, opened from disk, or kept in an air-gapped network. The
inputs travel in the page address's fragment (compressed), which a browser never sends to a
server: copying the address shares them. \`bylaw serve --ui-port\` serves the same page at
/playground.

Written into DIR (created if missing): index.html, playground.js (the engine and the page, about
1.4 MB), playground.css. Each file is written whole or not at all; other files in DIR are left
alone.

What the playground cannot do, it says as an error, never a pass: rules that read a cluster
(apiCall beyond the resources pasted, configMap, globalReference), an image registry or a
signature give an error result naming the entry; run \`bylaw apply\` for those.

Flags:
      --out DIR   the folder to write to (required)
  -h, --help      show this help

Exit codes: 0 written; 1 a file could not be written; 2 bad usage; 3 internal error (a bug in Bylaw).

Examples:
  bylaw playground --out site/playground
  bylaw playground --out /tmp/pg && python3 -m http.server -d /tmp/pg 8080`;

export async function playgroundCommand(args: string[], io: Io): Promise<number> {
  let values: { out?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args,
      options: { out: { type: "string" }, help: { type: "boolean", short: "h", default: false } },
    }));
  } catch (e) {
    io.err(`error: ${(e as Error).message}\nRun \`bylaw playground --help\` for usage.`);
    return 2;
  }
  if (values.help === true) {
    io.out(PLAYGROUND_HELP);
    return 0;
  }
  if (values.out === undefined || values.out === "") {
    io.err(
      "error: --out DIR is required: the folder to write the playground to\nRun `bylaw playground --help` for usage.",
    );
    return 2;
  }
  if (PLAYGROUND_BUNDLE === undefined) {
    io.err("error: the playground was not built into this Bylaw: run npm run build");
    return 3;
  }
  const files = new Map([
    [join(values.out, "index.html"), playgroundPage("")],
    [join(values.out, "playground.js"), PLAYGROUND_BUNDLE.script],
    [join(values.out, "playground.css"), PLAYGROUND_BUNDLE.style],
  ]);
  try {
    await writeFilesAtomically(files);
  } catch (e) {
    io.err(`error: cannot write the playground to ${values.out}: ${(e as Error).message}`);
    return 1;
  }
  io.err(`bylaw playground: wrote index.html, playground.js and playground.css to ${values.out}`);
  return 0;
}
