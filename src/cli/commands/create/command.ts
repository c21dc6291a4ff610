/** `bylaw create test|values|user-info|exception|cleanup-policy|metrics-config`: templates as `kyverno create` makes them. */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import type { JsonObject } from "../../../engine/index.js";
import type { Io } from "../../io.js";
import { usageLine } from "../../usage.js";
import { CREATE_HELP, CREATE_SUBCOMMAND_HELP } from "./help.js";
import {
  cleanupPolicyTemplate,
  exceptionTemplate,
  type ExpectedRow,
  metricsConfigTemplate,
  resourceFilter,
  testTemplate,
  userInfoTemplate,
  valuesTemplate,
} from "./templates.js";

export { CREATE_HELP };

type Built = { ok: true; doc: JsonObject } | { ok: false; error: string };
type Values = Record<string, string | boolean | string[] | undefined>;

const str = (v: Values[string]): string | undefined => (typeof v === "string" ? v : undefined);
const list = (v: Values[string]): string[] => (Array.isArray(v) ? v : []);

/** `k=v` pairs into a record; a pair without `=` is an error naming it. */
function pairs(
  items: readonly string[],
  flag: string,
): { ok: true; value: Record<string, string> } | { ok: false; error: string } {
  const value: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf("=");
    if (eq <= 0) return { ok: false, error: `${flag} ${JSON.stringify(item)}: expected key=value` };
    value[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return { ok: true, value };
}

type Options = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>["options"]>;

const SUBCOMMANDS: Record<string, { options: Options; build: (v: Values, positionals: string[]) => Built }> = {
  test: {
    options: {
      name: { type: "string", short: "n", default: "test-name" },
      policy: { type: "string", short: "p", multiple: true },
      resource: { type: "string", short: "r", multiple: true },
      values: { type: "string", short: "f" },
      pass: { type: "string", multiple: true },
      fail: { type: "string", multiple: true },
      skip: { type: "string", multiple: true },
    },
    build: (v) => {
      const rows: ExpectedRow[] = [];
      for (const result of ["pass", "fail", "skip"] as const) {
        for (const spec of list(v[result])) {
          const [policy = "", rule = "", resource = "", namespace = "", kind = ""] = spec
            .split(",")
            .map((s) => s.trim());
          if (policy === "" || rule === "" || resource === "")
            return {
              ok: false,
              error: `--${result} ${JSON.stringify(spec)}: expected policy,rule,resource[,namespace[,kind]]`,
            };
          rows.push({ policy, rule, resource, namespace, kind, result });
        }
      }
      const values = str(v["values"]);
      return {
        ok: true,
        doc: testTemplate({
          name: str(v["name"]) ?? "test-name",
          policies: list(v["policy"]),
          resources: list(v["resource"]),
          ...(values !== undefined ? { values } : {}),
          rows,
        }),
      };
    },
  },
  values: {
    options: {
      global: { type: "string", short: "g", multiple: true },
      "ns-selector": { type: "string", short: "n", multiple: true },
      rule: { type: "string", multiple: true },
      resource: { type: "string", multiple: true },
    },
    build: (v) => {
      const global = pairs(list(v["global"]), "--global");
      if (!global.ok) return global;
      const split = (flag: string, items: string[], head: number) => {
        const out: { names: string[]; values: Record<string, string> }[] = [];
        for (const item of items) {
          const parts = item.split(",");
          const names = parts.slice(0, head);
          const kv = pairs(parts.slice(head), flag);
          if (!kv.ok) return kv;
          if (names.length < head || names.some((n) => n === ""))
            return {
              ok: false as const,
              error: `${flag} ${JSON.stringify(item)}: expected ${head === 1 ? "name" : "policy,name"},key=value,...`,
            };
          out.push({ names, values: kv.value });
        }
        return { ok: true as const, value: out };
      };
      const ns = split("--ns-selector", list(v["ns-selector"]), 1);
      const rules = split("--rule", list(v["rule"]), 2);
      const resources = split("--resource", list(v["resource"]), 2);
      for (const r of [ns, rules, resources]) if (!r.ok) return r;
      if (!ns.ok || !rules.ok || !resources.ok) return { ok: false, error: "unreachable" };
      return {
        ok: true,
        doc: valuesTemplate({
          global: global.value,
          namespaces: ns.value.map((n) => ({ name: n.names[0] ?? "", labels: n.values })),
          rules: rules.value.map((r) => ({ policy: r.names[0] ?? "", rule: r.names[1] ?? "", values: r.values })),
          resources: resources.value.map((r) => ({
            policy: r.names[0] ?? "",
            resource: r.names[1] ?? "",
            values: r.values,
          })),
        }),
      };
    },
  },
  "user-info": {
    options: {
      username: { type: "string", short: "u" },
      group: { type: "string", short: "g", multiple: true },
      role: { type: "string", short: "r", multiple: true },
      "cluster-role": { type: "string", short: "c", multiple: true },
    },
    build: (v) => {
      const username = str(v["username"]);
      return {
        ok: true,
        doc: userInfoTemplate({
          ...(username !== undefined ? { username } : {}),
          groups: list(v["group"]),
          roles: list(v["role"]),
          clusterRoles: list(v["cluster-role"]),
        }),
      };
    },
  },
  exception: {
    options: {
      namespace: { type: "string" },
      background: { type: "string" },
      "no-background": { type: "boolean", default: false },
      "policy-rules": { type: "string", multiple: true },
      any: { type: "string", multiple: true },
      all: { type: "string", multiple: true },
    },
    build: (v, positionals) => {
      const name = positionals[0];
      if (name === undefined) return { ok: false, error: "give the exception's NAME" };
      const bg = str(v["background"]);
      if (bg !== undefined && bg !== "true" && bg !== "false")
        return { ok: false, error: `--background must be true or false (got ${JSON.stringify(bg)})` };
      const policyRules = list(v["policy-rules"]).map((s) => s.split(",").map((x) => x.trim()));
      if (policyRules.length === 0 || policyRules.some((p) => p.length < 2 || p.some((x) => x === "")))
        return {
          ok: false,
          error: "--policy-rules policy,rule-1,rule-2,...: at least one, naming a policy and its rules",
        };
      const filters = filtersOf(v);
      if (!filters.ok) return filters;
      const namespace = str(v["namespace"]);
      return {
        ok: true,
        doc: exceptionTemplate({
          name,
          ...(namespace !== undefined ? { namespace } : {}),
          background: v["no-background"] !== true && v["background"] !== "false",
          policyRules: policyRules.map(([policy = "", ...rules]) => ({ policy, rules })),
          ...filters.value,
        }),
      };
    },
  },
  "cleanup-policy": {
    options: {
      namespace: { type: "string" },
      schedule: { type: "string", short: "s", default: "*/5 * * * *" },
      any: { type: "string", multiple: true },
      all: { type: "string", multiple: true },
    },
    build: (v, positionals) => {
      const name = positionals[0];
      if (name === undefined) return { ok: false, error: "give the cleanup policy's NAME" };
      const filters = filtersOf(v);
      if (!filters.ok) return filters;
      const namespace = str(v["namespace"]);
      return {
        ok: true,
        doc: cleanupPolicyTemplate({
          name,
          ...(namespace !== undefined ? { namespace } : {}),
          schedule: str(v["schedule"]) ?? "*/5 * * * *",
          ...filters.value,
        }),
      };
    },
  },
  "metrics-config": {
    options: {
      name: { type: "string", short: "n", default: "kyverno-metrics" },
      namespace: { type: "string", default: "kyverno" },
      include: { type: "string", short: "i", multiple: true },
      exclude: { type: "string", short: "e", multiple: true },
    },
    build: (v) => ({
      ok: true,
      doc: metricsConfigTemplate({
        name: str(v["name"]) ?? "kyverno-metrics",
        namespace: str(v["namespace"]) ?? "kyverno",
        include: list(v["include"]),
        exclude: list(v["exclude"]),
      }),
    }),
  },
};

function filtersOf(
  v: Values,
): { ok: true; value: { any: JsonObject[]; all: JsonObject[] } } | { ok: false; error: string } {
  const any: JsonObject[] = [];
  const all: JsonObject[] = [];
  for (const [flag, into] of [
    ["any", any],
    ["all", all],
  ] as const) {
    for (const spec of list(v[flag])) {
      const f = resourceFilter(spec);
      if (!f.ok) return { ok: false, error: `--${flag} ${f.error}` };
      into.push(f.filter);
    }
  }
  if (any.length === 0 && all.length === 0)
    return { ok: false, error: 'give the resources to match with --any or --all (e.g. --any "kind=Pod,name=test-*")' };
  return { ok: true, value: { any, all } };
}

export async function createCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h") {
    io.out(CREATE_HELP);
    return 0;
  }
  if (sub === undefined) {
    io.err(usageLine("create", `give a TEMPLATE: one of ${Object.keys(SUBCOMMANDS).join(", ")}`));
    return 2;
  }
  const spec = SUBCOMMANDS[sub];
  if (spec === undefined) {
    io.err(
      usageLine("create", `unknown template ${JSON.stringify(sub)}: one of ${Object.keys(SUBCOMMANDS).join(", ")}`),
    );
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        ...spec.options,
        output: { type: "string", short: "o" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    io.err(usageLine(`create ${sub}`, (e as Error).message));
    return 2;
  }
  const values = parsed.values as Values;
  if (values["help"] === true) {
    io.out(CREATE_SUBCOMMAND_HELP[sub] ?? CREATE_HELP);
    return 0;
  }
  const built = spec.build(values, parsed.positionals);
  if (!built.ok) {
    io.err(usageLine(`create ${sub}`, built.error));
    return 2;
  }
  const text = stringify(built.doc, { lineWidth: 0 });
  const output = str(values["output"]);
  if (output === undefined) {
    io.out(text.trimEnd());
    return 0;
  }
  try {
    await writeFile(output, text);
  } catch (e) {
    io.err(`bylaw create ${sub}: cannot write ${output}: ${(e as Error).message}`);
    return 2;
  }
  return 0;
}
