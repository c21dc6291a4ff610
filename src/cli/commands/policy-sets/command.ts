/** `bylaw policy-sets [NAME]`: list the shipped policy sets, or one set's policies. */
import { parseArgs } from "node:util";
import type { Io } from "../../io.js";
import {
  describeSetPolicies,
  loadSetDocuments,
  policySetsDir,
  readCatalog,
  selectSets,
  type PolicySet,
  type SetPolicy,
} from "../../policy-sets/index.js";
import { POLICY_SETS_HELP } from "./help.js";

export { POLICY_SETS_HELP };

const WIDTH = 100;

export async function policySetsCommand(args: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        "output-format": { type: "string", default: "text" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    io.err(`bylaw policy-sets: ${(e as Error).message}\n\n${POLICY_SETS_HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(POLICY_SETS_HELP);
    return 0;
  }
  const format = values["output-format"];
  if (format !== "text" && format !== "json") {
    io.err(`bylaw policy-sets: --output-format must be text or json (got ${JSON.stringify(format)})`);
    return 2;
  }
  if (positionals.length > 1) {
    io.err(`bylaw policy-sets: give at most one set NAME\n\n${POLICY_SETS_HELP}`);
    return 2;
  }
  const catalog = await readCatalog(policySetsDir());
  for (const p of catalog.problems) io.err(`warning: ${p}`);
  const name = positionals[0];
  if (name === undefined) {
    const rows = await Promise.all(
      catalog.sets.map(async (set) => ({ set, policies: describeSetPolicies(await loadSetDocuments([set])) })),
    );
    io.out(
      format === "json"
        ? JSON.stringify(
            rows.map(({ set, policies }) => ({
              name: set.name,
              policies: policies.length,
              description: set.description,
            })),
            null,
            2,
          )
        : listSets(rows),
    );
    return 0;
  }
  const selected = selectSets(catalog, [name]);
  if (!selected.ok) {
    io.err(`bylaw policy-sets: ${selected.error}`);
    return 2;
  }
  const set = selected.sets[0] as PolicySet;
  const docs = await loadSetDocuments([set]);
  for (const d of docs) if (d.error !== undefined) io.err(`warning: ${d.error}`);
  const policies = describeSetPolicies(docs);
  if (format === "json") {
    io.out(
      JSON.stringify(
        { name: set.name, description: set.description, policies: policies.map(({ source: _source, ...p }) => p) },
        null,
        2,
      ),
    );
  } else io.out(showSet(set, policies));
  return 0;
}

function listSets(rows: readonly { set: PolicySet; policies: readonly SetPolicy[] }[]): string {
  if (rows.length === 0) return "No policy sets found.";
  const nameWidth = Math.max(4, ...rows.map((r) => r.set.name.length));
  const lines = [`${"NAME".padEnd(nameWidth)}  POLICIES  DESCRIPTION`];
  const indent = nameWidth + 12;
  for (const { set, policies } of rows) {
    const [first = "", ...rest] = wrap(set.description, indent);
    lines.push(
      `${set.name.padEnd(nameWidth)}  ${String(policies.length).padStart(8)}  ${first.trimStart()}`.trimEnd(),
      ...rest,
    );
  }
  lines.push(
    "",
    "Show a set's policies: bylaw policy-sets NAME. Use one: bylaw apply --policy-set NAME -r RESOURCE...",
  );
  return lines.join("\n");
}

function showSet(set: PolicySet, policies: readonly SetPolicy[]): string {
  const lines = [`${set.name}: ${policies.length} ${policies.length === 1 ? "policy" : "policies"}`];
  if (set.description !== "") lines.push(...wrap(set.description, 0));
  lines.push("");
  const nameWidth = Math.max(6, ...policies.map((p) => p.name.length));
  const sevWidth = Math.max(8, ...policies.map((p) => (p.severity ?? "-").length));
  const actWidth = Math.max(6, ...policies.map((p) => p.action.length));
  lines.push(`${"POLICY".padEnd(nameWidth)}  ${"SEVERITY".padEnd(sevWidth)}  ${"ACTION".padEnd(actWidth)}  TITLE`);
  for (const p of policies) {
    lines.push(
      `${p.name.padEnd(nameWidth)}  ${(p.severity ?? "-").padEnd(sevWidth)}  ${p.action.padEnd(actWidth)}  ${p.title ?? ""}`.trimEnd(),
    );
    if (p.description !== undefined) lines.push(...wrap(p.description, 4));
  }
  lines.push(
    "",
    `Use it: bylaw apply --policy-set ${set.name} -r RESOURCE...   (add --enforce to run every policy as Enforce)`,
  );
  return lines.join("\n");
}

/** Word-wrap text to WIDTH columns with an indent. */
function wrap(text: string, indent: number): string[] {
  const pad = " ".repeat(indent);
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && pad.length + line.length + 1 + word.length > WIDTH) {
      lines.push(pad + line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(pad + line);
  return lines;
}
