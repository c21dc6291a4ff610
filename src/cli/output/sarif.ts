/**
 * `--output-format sarif`: SARIF 2.1.0 for code scanning (GitHub, GitLab, Azure DevOps...). The tool
 * is `bylaw`; its rules are the policy/rule pairs that ran, described from the policy's annotations;
 * each fail, warn or error is a result pointing at the manifest file and the line its document starts.
 * Levels: a failing Enforce rule is an error, a failing Audit rule (or a warn) a warning, a rule that
 * could not be evaluated an error. Passing and skipped rules are not results.
 */
import { isAbsolute, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { JsonObject } from "../../engine/index.js";
import { failedControls } from "./pss-controls.js";
import { displaySource } from "./source-path.js";
import { compareText, type ResultRow } from "./types.js";

export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
const SRCROOT = "%SRCROOT%";

interface SarifOptions {
  readonly cwd: string;
  readonly version?: string;
}

type Level = "error" | "warning";

/** What the output says about one policy/rule: its first row, and facts gathered from all its rows. */
interface RuleFacts {
  readonly row: ResultRow;
  ruleMessage?: string | undefined;
  enforce: boolean;
}

export function renderSarif(rows: readonly ResultRow[], options: SarifOptions): JsonObject {
  const ruleRows = new Map<string, RuleFacts>();
  for (const row of rows) {
    const facts = ruleRows.get(ruleId(row)) ?? { row, enforce: false };
    if (row.action === "Enforce") facts.enforce = true;
    facts.ruleMessage ??= row.ruleMessage;
    ruleRows.set(ruleId(row), facts);
  }
  const ids = [...ruleRows.keys()].sort(compareText);
  const index = new Map(ids.map((id, i) => [id, i]));
  const rules = ids.map((id) => describeRule(id, ruleRows.get(id) as RuleFacts));
  const results: JsonObject[] = [];
  for (const row of rows) {
    const level = levelOf(row);
    if (level === undefined) continue;
    results.push(result(row, level, index.get(ruleId(row)) ?? 0, options.cwd));
  }
  const driver: JsonObject = {
    name: "bylaw",
    ...(options.version !== undefined ? { version: options.version, semanticVersion: options.version } : {}),
    rules,
  };
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: { driver },
        originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(withSlash(options.cwd)).href } },
        results,
      },
    ],
  };
}

function ruleId(row: ResultRow): string {
  // The CEL kinds name no rule: their id is the policy alone.
  return row.rule === "" ? row.policyKey : `${row.policyKey}/${row.rule}`;
}

function levelOf(row: ResultRow): Level | undefined {
  if (row.result === "fail") return row.action === "Audit" ? "warning" : "error";
  if (row.result === "warn") return "warning";
  if (row.result === "error") return "error";
  return undefined;
}

function describeRule(id: string, { row, ruleMessage, enforce }: RuleFacts): JsonObject {
  const { title, description, severity, category } = row.info;
  const short = title !== undefined ? `${title} (rule ${row.rule})` : `Policy ${row.policyKey}, rule ${row.rule}`;
  const full = description ?? ruleMessage ?? short;
  const help = [
    description ?? title ?? `Policy ${row.policyKey}, rule ${row.rule}.`,
    ...(ruleMessage !== undefined && ruleMessage !== description ? [`The rule's message: ${ruleMessage}`] : []),
    `To fix a finding, change the resource as the result message says. To accept it on purpose, grant a narrow PolicyException (policyName: ${row.policyKey}, ruleNames: [${row.rule}]) and pass it with \`bylaw apply --exception FILE\`.`,
  ].join("\n\n");
  const tags = [
    ...(category !== undefined
      ? category
          .split(",")
          .map((c) => c.trim())
          .filter((c) => c !== "")
      : []),
    ...(severity !== undefined ? ["security"] : []),
  ];
  const score = severity !== undefined ? SECURITY_SEVERITY[severity.toLowerCase()] : undefined;
  const properties: JsonObject = {
    ...(tags.length > 0 ? { tags } : {}),
    ...(severity !== undefined ? { severity } : {}),
    ...(score !== undefined ? { "security-severity": score } : {}),
  };
  return {
    id,
    name: id,
    shortDescription: { text: short },
    fullDescription: { text: full },
    help: { text: help },
    defaultConfiguration: { level: enforce ? "error" : "warning" },
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
  };
}

/** GitHub reads `security-severity` (0–10) to rank alerts: critical > 9, high 7–8.9, medium 4–6.9. */
const SECURITY_SEVERITY: Record<string, string> = {
  critical: "9.5",
  high: "8.0",
  medium: "5.5",
  low: "3.0",
  info: "0.0",
};

function result(row: ResultRow, level: Level, ruleIndex: number, cwd: string): JsonObject {
  const controls = failedControls(row.message, row.properties);
  const text = row.result === "error" ? `rule could not be evaluated: ${row.message}` : row.message;
  return {
    ruleId: ruleId(row),
    ruleIndex,
    level,
    message: { text: text === "" ? `${row.resource} ${row.result}s ${ruleId(row)}` : text },
    locations: [location(row, cwd)],
    properties: {
      result: row.result,
      action: row.action,
      resource: row.resource,
      ...(controls.length > 0 ? { controls } : {}),
    },
  };
}

function location(row: ResultRow, cwd: string): JsonObject {
  const logical = { logicalLocations: [{ name: row.resource, kind: "resource" }] };
  const origin = row.origin;
  if (origin === undefined || origin.source.startsWith("<")) return logical;
  const shown = displaySource(origin.source, cwd);
  const artifactLocation = isAbsolute(shown)
    ? { uri: pathToFileURL(origin.source).href }
    : { uri: shown.split("/").map(encodeURIComponent).join("/"), uriBaseId: SRCROOT };
  return {
    physicalLocation: {
      artifactLocation,
      ...(origin.line !== undefined && origin.line >= 1 ? { region: { startLine: origin.line } } : {}),
    },
    ...logical,
  };
}

function withSlash(dir: string): string {
  return dir.endsWith(sep) ? dir : dir + sep;
}
