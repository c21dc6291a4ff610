/** `bylaw jp`: JMESPath with Kyverno's functions and dialect, like `kyverno jp`. */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { formatAst, type FunctionDef, goJsonMarshal, type JsonValue } from "../../../engine/index.js";
import { parseDocuments } from "../../../platform/yaml/index.js";
import type { Io } from "../../io.js";
import { offlineEngine } from "../../offline/offline-engine.js";

export const JP_HELP = `Usage: bylaw jp COMMAND [flags]

JMESPath as Kyverno evaluates it: the original JMESPath spec (not Community Edition), Kyverno's
51 custom functions, and an error (Unknown key "x" in path) when a path reads a missing key.

Commands:
  query EXPR...        evaluate expressions against a JSON or YAML document
      -i, --input FILE   the document (default: standard input)
      -q, --query FILE   read the expression(s) from a file, one per line, instead of arguments
      -c, --compact      print compact JSON
      -u, --unquoted     print strings without quotes
  function [NAME...]   list the functions with their signatures and a one-line description
  parse EXPR           print the syntax tree of an expression
      -f, --file FILE    read the expression from a file

Exit codes: 0 success; 1 an expression failed to parse or evaluate; 2 bad usage or input;
3 internal error (a bug in Bylaw: please report it).

Examples:
  kubectl get pod web -o json | bylaw jp query "spec.containers[].image"
  bylaw jp query -i pod.yaml "to_upper(metadata.name)"
  bylaw jp function regex_match
  bylaw jp parse "items[?x > \`1\`].name"`;

export async function jpCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "-h" || sub === "--help") {
    io.out(JP_HELP);
    return sub === undefined ? 2 : 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      input: { type: "string", short: "i" },
      query: { type: "string", short: "q" },
      file: { type: "string", short: "f" },
      compact: { type: "boolean", short: "c", default: false },
      unquoted: { type: "boolean", short: "u", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.out(JP_HELP);
    return 0;
  }
  const engine = offlineEngine();
  if (sub === "function") return listFunctions(engine.env.jmespath.functions, positionals, io);
  if (sub === "parse") {
    const expr = values.file !== undefined ? (await readFile(values.file, "utf8")).trim() : positionals.join(" ");
    if (expr === "") return usage(io, "jp parse needs an expression");
    try {
      io.out(formatAst(expr));
      return 0;
    } catch (e) {
      io.err(`bylaw jp parse: ${(e as Error).message}`);
      return 1;
    }
  }
  if (sub !== "query") return usage(io, `unknown jp command ${JSON.stringify(sub)}`);
  const exprs =
    values.query !== undefined
      ? (await readFile(values.query, "utf8"))
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => l !== "")
      : positionals;
  if (exprs.length === 0) return usage(io, "jp query needs an expression");
  const text = values.input !== undefined ? await readFile(values.input, "utf8") : await io.readStdin();
  const source = values.input ?? "<stdin>";
  const docs = parseDocuments(text, source);
  const bad = docs.find((d) => d.error !== undefined);
  if (bad) {
    io.err(`bylaw jp query: ${bad.error}`);
    return 2;
  }
  const data: JsonValue = docs.find((d) => d.value !== undefined)?.value ?? null;
  let code = 0;
  for (const expr of exprs) {
    try {
      const result = engine.env.jmespath.compile(expr).search(data, { ports: engine.env.ports });
      io.out(values.unquoted && typeof result === "string" ? result : render(result, values.compact));
    } catch (e) {
      io.err(`bylaw jp query: ${expr}: ${(e as Error).message}`);
      code = 1;
    }
  }
  return code;
}

function render(v: JsonValue, compact: boolean): string {
  const json = goJsonMarshal(v);
  return compact ? json : JSON.stringify(JSON.parse(json) as JsonValue, null, 2);
}

function signature(f: FunctionDef): string {
  const args = f.args.map((a) => `${a.types.join("|")}${a.variadic ? "..." : ""}${a.optional ? "?" : ""}`).join(", ");
  return `${f.name}(${args}) ${f.returns}`;
}

function listFunctions(table: ReadonlyMap<string, FunctionDef>, names: string[], io: Io): number {
  const all = [...table.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  const chosen = names.length === 0 ? all : all.filter((f) => names.includes(f.name));
  const unknown = names.filter((n) => !table.has(n));
  for (const n of unknown) io.err(`bylaw jp function: no function named ${JSON.stringify(n)}`);
  for (const f of chosen) io.out(`Name: ${f.name}\nSignature: ${signature(f)}\n${f.description}\n`);
  return unknown.length > 0 ? 1 : 0;
}

function usage(io: Io, msg: string): number {
  io.err(`bylaw jp: ${msg}\nRun \`bylaw jp --help\` for usage.`);
  return 2;
}
