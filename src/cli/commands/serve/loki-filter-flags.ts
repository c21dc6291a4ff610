/**
 * The monitoring component's result filters for Loki, as Policy Reporter's users configure a Loki
 * target: `--loki-minimum-severity` (its `minimumSeverity`), `--loki-sources` (its `sources`) and
 * `--loki-filter FIELD.include=V1,V2` / `FIELD.exclude=…` (its `filter.FIELD.include/exclude`),
 * FIELD one of namespaces, policies, sources, severities, status, reportLabels.
 */
import {
  FILTER_FIELDS,
  SEVERITY_ORDER,
  compileResultFilter,
  type FilterField,
} from "../../../controllers/monitoring/index.js";

export const LOKI_FILTER_FLAG_OPTIONS = {
  "loki-minimum-severity": { type: "string" },
  "loki-sources": { type: "string", multiple: true },
  "loki-filter": { type: "string", multiple: true },
} as const;

export interface LokiFilterFlags {
  readonly "loki-minimum-severity"?: string | undefined;
  readonly "loki-sources"?: string[] | undefined;
  readonly "loki-filter"?: string[] | undefined;
}

const list = (text: string): string[] =>
  text
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

type Lists = Partial<Record<FilterField, { include: string[]; exclude: string[] }>>;

function filterLists(specs: readonly string[]): Lists | string {
  const fields: Lists = {};
  for (const spec of specs) {
    const m = /^([A-Za-z]+)\.(include|exclude)=(.*)$/s.exec(spec);
    const name = m?.[1] ?? "";
    if (m === null || !(FILTER_FIELDS as readonly string[]).includes(name))
      return `--loki-filter ${JSON.stringify(spec)}: use FIELD.include=V1,V2 or FIELD.exclude=V1,V2 with FIELD one of ${FILTER_FIELDS.join(", ")}`;
    const values = list(m[3] ?? "");
    if (values.length === 0) return `--loki-filter ${JSON.stringify(spec)}: give at least one value`;
    const lists = (fields[name as FilterField] ??= { include: [], exclude: [] });
    lists[m[2] === "include" ? "include" : "exclude"].push(...values);
  }
  for (const [name, lists] of Object.entries(fields))
    if (lists.include.length > 0 && lists.exclude.length > 0)
      return `--loki-filter: give ${name}.include or ${name}.exclude, not both (Policy Reporter would ignore the exclude list)`;
  return fields;
}

/** The compiled result filter (undefined: every result is sent), or what is wrong with the flags. */
export function lokiResultFilter(
  values: LokiFilterFlags,
): { ok: true; value: ReturnType<typeof compileResultFilter> } | { ok: false; error: string } {
  const minimum = values["loki-minimum-severity"];
  if (minimum !== undefined && !(SEVERITY_ORDER as readonly string[]).includes(minimum))
    return {
      ok: false,
      error: `--loki-minimum-severity ${JSON.stringify(minimum)}: use one of ${SEVERITY_ORDER.join(", ")}`,
    };
  const fields = filterLists(values["loki-filter"] ?? []);
  if (typeof fields === "string") return { ok: false, error: fields };
  const sources = (values["loki-sources"] ?? []).flatMap(list);
  if (sources.length > 0) {
    if (fields.sources !== undefined)
      return { ok: false, error: "give --loki-sources or --loki-filter sources.*, not both" };
    fields.sources = { include: sources, exclude: [] };
  }
  return {
    ok: true,
    value: compileResultFilter({
      ...(minimum !== undefined ? { minimumSeverity: minimum as (typeof SEVERITY_ORDER)[number] } : {}),
      fields,
    }),
  };
}
