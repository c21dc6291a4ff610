/// <reference lib="dom" />
/**
 * The playground page (docs/playground.md): three boxes (policies, resources, a values file), run
 * in this tab by the engine itself (run-playground.ts) a moment after typing stops, and the results,
 * patches, generated objects and explanations drawn below. The inputs live in the URL fragment
 * (share-link.ts), which a browser never sends to a server: copying the address shares them.
 */
import { el } from "../../ui/browser/dom.js";
import { writeYaml } from "../../platform/yaml/index.js";
import type { JsonValue } from "../../engine/index.js";
import { runPlayground, type CheckedResource, type PlaygroundOutput } from "../run-playground.js";
import { decodeInputs, encodeInputs, type PlaygroundInputs } from "../share-link.js";
import { EXAMPLE } from "../example-inputs.js";

const IDLE_MS = 400;
const BOXES = ["policies", "resources", "values"] as const;
type Box = (typeof BOXES)[number];

const LABELS: Readonly<Record<Box, string>> = {
  policies: "Policies and PolicyExceptions (YAML or JSON, one or more documents)",
  resources: "Resources to check (YAML or JSON, one or more documents)",
  values: "Values file (optional: globalValues, namespaceSelector, namespaces, policies)",
};

let timer: ReturnType<typeof setTimeout> | undefined;

function boxes(): Record<Box, HTMLTextAreaElement> {
  const out = {} as Record<Box, HTMLTextAreaElement>;
  for (const box of BOXES) out[box] = document.getElementById(`in-${box}`) as HTMLTextAreaElement;
  return out;
}

function inputs(): PlaygroundInputs {
  const b = boxes();
  return { policies: b.policies.value, resources: b.resources.value, values: b.values.value };
}

function run(): void {
  const given = inputs();
  history.replaceState(null, "", `#${encodeInputs(given)}`);
  const status = document.getElementById("status") as HTMLElement;
  const started = performance.now();
  let output: PlaygroundOutput;
  try {
    output = runPlayground(given);
  } catch (e) {
    output = { errors: [`the run failed: ${(e as Error).message}`], warnings: [], policies: 0, resources: [] };
  }
  const ms = Math.round(performance.now() - started);
  status.textContent = `${output.policies} policies, ${output.resources.length} resources, ${ms} ms, in this browser`;
  document.getElementById("output")?.replaceChildren(...drawOutput(output));
  document.body.dataset["runs"] = String(Number(document.body.dataset["runs"] ?? "0") + 1);
}

function drawOutput(output: PlaygroundOutput): Node[] {
  const nodes: Node[] = [];
  if (output.errors.length > 0)
    nodes.push(
      el("ul", { class: "problems", id: "errors" }, ...output.errors.map((e) => el("li", { class: "problem" }, e))),
    );
  if (output.warnings.length > 0)
    nodes.push(el("ul", { class: "warnings" }, ...output.warnings.map((w) => el("li", { class: "warn" }, w))));
  for (const r of output.resources) nodes.push(drawResource(r));
  return nodes;
}

function drawResource(r: CheckedResource): HTMLElement {
  const rows = r.rows.map((x) =>
    el(
      "tr",
      {
        class: "result",
        "data-policy": x.policy,
        "data-rule": x.rule,
        "data-resource": x.resource,
        "data-result": x.result,
      },
      el("td", {}, x.policy),
      el("td", {}, x.rule),
      el("td", { class: x.result }, x.result),
      el("td", { class: "message" }, x.message),
    ),
  );
  return el(
    "section",
    { class: "checked", "data-resource": r.resource },
    el("h2", {}, r.resource),
    rows.length === 0
      ? el("p", { class: "none" }, "No policy applies to this resource.")
      : el(
          "table",
          { class: "results" },
          el(
            "thead",
            {},
            el("tr", {}, el("th", {}, "Policy"), el("th", {}, "Rule"), el("th", {}, "Result"), el("th", {}, "Message")),
          ),
          el("tbody", {}, ...rows),
        ),
    r.patch.length > 0 &&
      yamlBlock("Patches (JSON Patch over the resource as given)", "patch", r.patch as unknown as JsonValue),
    r.generated.length > 0 && yamlBlock("Generated", "generated", r.generated as unknown as JsonValue),
    r.explanation !== "" &&
      el(
        "details",
        { class: "explanation" },
        el("summary", {}, "Why (explanation)"),
        el("pre", { class: "why-text" }, r.explanation),
      ),
  );
}

function yamlBlock(title: string, cls: string, value: JsonValue): HTMLElement {
  return el("div", { class: cls }, el("h3", {}, title), el("pre", { class: "yaml" }, writeYaml(value)));
}

function schedule(): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(run, IDLE_MS);
}

function start(): void {
  const root = document.getElementById("app") as HTMLElement;
  const fromLink = location.hash.length > 1 ? decodeInputs(location.hash) : undefined;
  const given = fromLink?.ok === true ? fromLink.inputs : EXAMPLE;
  const form = el(
    "div",
    { class: "inputs" },
    ...BOXES.map((box) => {
      const area = el("textarea", { id: `in-${box}`, spellcheck: "false", rows: box === "values" ? "6" : "18" });
      area.value = given[box];
      area.addEventListener("input", schedule);
      return el("label", { class: `box box-${box}` }, el("span", {}, LABELS[box]), area);
    }),
  );
  const share = el("button", { id: "share", type: "button" }, "Copy link");
  share.addEventListener("click", () => {
    run();
    void navigator.clipboard?.writeText(location.href).then(
      () => (share.textContent = "Link copied"),
      () => (share.textContent = "Copy the address bar"),
    );
  });
  const runButton = el("button", { id: "run", type: "button" }, "Run");
  runButton.addEventListener("click", run);
  const intro = el(
    "p",
    { class: "intro" },
    "Policies run here, in this browser, by Bylaw's own engine, as `bylaw apply` runs them: nothing is sent to any server. The link carries the inputs in its fragment.",
  );
  const parts: Node[] = [intro];
  if (fromLink?.ok === false) parts.push(el("p", { class: "problem" }, fromLink.error));
  parts.push(
    form,
    el("div", { class: "actions" }, runButton, share, el("span", { id: "status" }, "")),
    el("div", { id: "output" }),
  );
  root.replaceChildren(...parts);
  window.addEventListener("hashchange", () => {
    const next = decodeInputs(location.hash);
    if (!next.ok) return;
    const b = boxes();
    for (const box of BOXES) if (b[box].value !== next.inputs[box]) b[box].value = next.inputs[box];
    run();
  });
  run();
}

start();
