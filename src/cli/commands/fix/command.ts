/** `bylaw fix policy|test PATH...`: rewrite deprecated fields in place; `--dry-run` prints a diff instead. */
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { parseArgs } from "node:util";
import { createTwoFilesPatch } from "diff";
import { type Document, parseAllDocuments } from "yaml";
import type { Io } from "../../io.js";
import { usageLine } from "../../usage.js";
import { discoverTests } from "../test/discover.js";
import { fixPolicy } from "./fix-policy.js";
import { fixTest } from "./fix-test.js";

export const FIX_HELP = `Usage: bylaw fix policy|test PATH... [flags]

Rewrite deprecated fields in place, as \`kyverno fix\` does; comments and layout are kept (only
the spaces before an inline comment become one).

  policy   ClusterPolicy/Policy files (PATH: files, or folders read recursively for .yaml/.yml):
           spec.validationFailureAction(Overrides) → each validate rule's failureAction(Overrides);
           spec.generateExistingOnPolicyUpdate / spec.generateExisting → generate.generateExisting;
           spec.mutateExistingOnPolicyUpdate → mutate.mutateExistingOnPolicyUpdate;
           match/exclude without any/all → any; preconditions as a list → all;
           operators Equal, NotEqual, In, NotIn → Equals, NotEquals, AllIn, AnyNotIn
  test     kyverno-test.yaml files (PATH: files, or folders searched for --file-name):
           missing apiVersion/kind set; name → metadata.name; results[].resource → resources;
           results[].status → result; patchedResource → patchedResources; duplicate resources dropped

Flags:
      --dry-run            change nothing: print a unified diff of what would change
  -f, --file-name NAME     fix test: the test file name to look for (default kyverno-test.yaml)
  -h, --help               show this help

Each change is reported on stderr (file: message).

Exit codes: 0 done (or nothing to fix); 1 a file could not be read, parsed or written;
2 bad usage; 3 internal error (a bug in Bylaw).

Examples:
  bylaw fix policy policies/ --dry-run
  bylaw fix test . `;

type Fixer = (doc: Document) => string[];

export async function fixCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      "dry-run": { type: "boolean", default: false },
      "file-name": { type: "string", short: "f", default: "kyverno-test.yaml" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.out(FIX_HELP);
    return 0;
  }
  const [what, ...paths] = positionals;
  if (what !== "policy" && what !== "test") {
    io.err(
      usageLine(
        "fix",
        what === undefined
          ? "say what to fix: policy or test"
          : `unknown target ${JSON.stringify(what)}: policy or test`,
      ),
    );
    return 2;
  }
  if (paths.length === 0) {
    io.err(usageLine("fix", `give the ${what} files or folders to fix`));
    return 2;
  }
  const found = what === "test" ? await discoverTests(paths, values["file-name"]) : await yamlFiles(paths);
  let failed = found.errors.length > 0;
  for (const e of found.errors) io.err(`error: ${e}`);
  const fixer: Fixer = what === "test" ? fixTest : fixPolicy;
  for (const file of found.files) {
    const r = await fixFile(file, fixer, values["dry-run"], io);
    failed ||= !r;
  }
  return failed ? 1 : 0;
}

async function fixFile(file: string, fixer: Fixer, dryRun: boolean, io: Io): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    io.err(`error: ${file}: ${(e as Error).message}`);
    return false;
  }
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return true; // an empty file
  const broken = docs.find((d) => d.errors.length > 0);
  if (broken !== undefined) {
    io.err(`error: ${file}: not valid YAML, left as it is: ${broken.errors[0]?.message ?? ""}`);
    return false;
  }
  const messages = docs.flatMap((d, i) => fixer(d).map((m) => (docs.length > 1 ? `document ${i + 1}: ${m}` : m)));
  if (messages.length === 0) return true;
  for (const m of messages) io.err(`${file}: ${m}`);
  // Flow collections are written back as they are usually written ({a: b}), so untouched lines stay as they were.
  const fixed = docs.map((d) => d.toString({ flowCollectionPadding: false })).join("");
  if (dryRun) {
    io.out(createTwoFilesPatch(file, file, text, fixed, "", "fixed").trimEnd());
    return true;
  }
  try {
    await writeFile(file, fixed);
  } catch (e) {
    io.err(`error: ${file}: cannot write: ${(e as Error).message}`);
    return false;
  }
  return true;
}

async function yamlFiles(paths: readonly string[]): Promise<{ files: string[]; errors: string[] }> {
  const files: string[] = [];
  const errors: string[] = [];
  const walk = async (p: string): Promise<void> => {
    const entries = (await readdir(p, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const full = join(p, e.name);
      if (e.isDirectory() && e.name !== "node_modules" && e.name !== ".git") await walk(full);
      else if (e.isFile() && (extname(e.name) === ".yaml" || extname(e.name) === ".yml")) files.push(full);
    }
  };
  for (const p of paths) {
    try {
      if ((await stat(p)).isDirectory()) await walk(p);
      else files.push(p);
    } catch {
      errors.push(`${p}: no such file or directory`);
    }
  }
  return { files, errors };
}
