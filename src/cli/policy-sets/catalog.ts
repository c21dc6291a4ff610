/** Find the policy sets in a folder (`<dir>/<set>/set.yaml`) and pick sets by name. */
import { readdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { compareText } from "../output/types.js";
import { readPolicySet } from "./read-set.js";
import { POLICY_SET_FILE, POLICY_SETS_DIR_ENV, type PolicySet, type PolicySetCatalog } from "./types.js";

export async function readCatalog(dir: string): Promise<PolicySetCatalog> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort(compareText);
  } catch {
    return {
      dir,
      sets: [],
      problems: [`no policy sets folder at ${dir} (set ${POLICY_SETS_DIR_ENV} to use another folder)`],
    };
  }
  const sets: PolicySet[] = [];
  const problems: string[] = [];
  for (const folder of names) {
    const file = join(dir, folder, POLICY_SET_FILE);
    if (!existsSync(file)) continue;
    const read = await readPolicySet(file);
    if (!read.ok) {
      problems.push(read.problem);
      continue;
    }
    const twin = sets.find((s) => s.name === read.set.name);
    if (twin)
      problems.push(`${file}: policy set ${read.set.name} is already defined in ${twin.file}; this one is ignored`);
    else sets.push(read.set);
  }
  sets.sort((a, b) => compareText(a.name, b.name));
  return { dir, sets, problems };
}

type SetSelection = { ok: true; sets: PolicySet[] } | { ok: false; error: string };

/** The sets named, in the order given (each once); an unknown name is an error listing the sets there are. */
export function selectSets(catalog: PolicySetCatalog, names: readonly string[]): SetSelection {
  const chosen: PolicySet[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    const set = catalog.sets.find((s) => s.name === name);
    if (set === undefined) unknown.push(name);
    else if (!chosen.includes(set)) chosen.push(set);
  }
  if (unknown.length === 0) return { ok: true, sets: chosen };
  const what =
    unknown.length === 1
      ? `unknown policy set ${JSON.stringify(unknown[0])}`
      : `unknown policy sets ${unknown.map((n) => JSON.stringify(n)).join(", ")}`;
  const available =
    catalog.sets.length > 0
      ? `available sets: ${catalog.sets.map((s) => s.name).join(", ")} (see \`bylaw policy-sets\`)`
      : `no policy sets found in ${catalog.dir}${catalog.problems.length > 0 ? `: ${catalog.problems.join("; ")}` : ""}`;
  return { ok: false, error: `${what}; ${available}` };
}
