/// <reference lib="dom" />
/**
 * The report UI's page (docs/adr/0022-report-ui.md): asks for the viewer's bearer token (kept in
 * this tab's sessionStorage only), reads `/api/reports` with it, draws the page the URL's fragment
 * names, and reads again every few seconds, redrawing when the reports changed.
 */
import type { PolicyAnswer } from "../policy-details.js";
import type { ReportsAnswer } from "../report-sources.js";
import { formatFragment, parseFragment, type Filters } from "../view-state.js";
import { el } from "./dom.js";
import { drawPage, type PolicyPanel, type WhyPanel, whyKey } from "./pages.js";
import type { ReportRow } from "../report-rows.js";

const TOKEN_KEY = "bylaw-ui-token";
/** Namespaces to read one by one where the viewer may not list reports cluster-wide (comma-separated). */
const NAMESPACES_KEY = "bylaw-ui-namespaces";
const POLL_MS = 3_000;

let answer: ReportsAnswer | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
let lastStatus = "";
/** The policy page's status and text, by policy name, read once per visit of the page. */
const policies = new Map<string, PolicyPanel>();
/** The open "why" panels, by row (pages.ts whyKey). */
const whys = new Map<string, WhyPanel>();

/** Opens a row's why panel (reading /api/explain), or closes it. */
function toggleWhy(row: ReportRow): void {
  const key = whyKey(row);
  if (whys.has(key)) whys.delete(key);
  else {
    whys.set(key, { state: "loading" });
    void loadWhy(row, key);
  }
  draw();
}

async function loadWhy(row: ReportRow, key: string): Promise<void> {
  const token = sessionStorage.getItem(TOKEN_KEY) ?? "";
  const query = new URLSearchParams({
    policy: row.policy,
    apiVersion: row.apiVersion,
    kind: row.kind,
    namespace: row.namespace,
    name: row.name,
  });
  let panel: WhyPanel;
  try {
    const res = await fetch(`/api/explain?${query.toString()}`, {
      headers: { authorization: `Bearer ${token}` },
      cache: "no-store",
    });
    // One explanation is worked out at a time: wait a moment and ask again.
    if (res.status === 429) {
      setTimeout(() => void (whys.has(key) ? loadWhy(row, key) : undefined), 1_000);
      return;
    }
    const body = (await res.json()) as { error?: string; text?: string; notes?: string[] };
    panel = res.ok
      ? { state: "read", text: body.text ?? "", notes: body.notes ?? [] }
      : { state: "failed", message: body.error ?? `HTTP ${res.status}` };
  } catch (e) {
    panel = { state: "failed", message: e instanceof Error ? e.message : String(e) };
  }
  if (!whys.has(key)) return;
  whys.set(key, panel);
  draw();
}

function root(): HTMLElement {
  const app = document.getElementById("app");
  if (app === null) throw new Error("the page has no #app");
  return app;
}

function askToken(problem: string): void {
  if (timer !== undefined) clearTimeout(timer);
  const input = el("input", { type: "password", name: "token", autocomplete: "off", "aria-label": "bearer token" });
  const namespaces = el("input", {
    type: "text",
    name: "namespaces",
    autocomplete: "off",
    placeholder: "namespaces (optional): shop, bank",
    "aria-label": "namespaces",
  });
  namespaces.value = sessionStorage.getItem(NAMESPACES_KEY) ?? "";
  const form = el(
    "form",
    { class: "login" },
    el("h1", {}, "Bylaw policy reports"),
    el(
      "p",
      {},
      "Reports are read with your own Kubernetes identity. Paste a bearer token (for example from kubectl create token NAME).",
    ),
    problem !== "" && el("p", { class: "problem" }, problem),
    input,
    el("p", {}, "If you may list reports only in some namespaces, name them: they are read one by one."),
    namespaces,
    el("button", { type: "submit" }, "Show reports"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    sessionStorage.setItem(NAMESPACES_KEY, namespaces.value.trim());
    void refresh(true);
  });
  root().replaceChildren(form);
}

async function refresh(force: boolean): Promise<void> {
  if (timer !== undefined) clearTimeout(timer);
  const token = sessionStorage.getItem(TOKEN_KEY) ?? "";
  if (token === "") return askToken("");
  let next: ReportsAnswer;
  try {
    const namespaces = (sessionStorage.getItem(NAMESPACES_KEY) ?? "").replace(/\s+/g, "");
    const query = namespaces === "" ? "" : `?namespaces=${encodeURIComponent(namespaces)}`;
    const res = await fetch(`/api/reports${query}`, {
      headers: { authorization: `Bearer ${token}` },
      cache: "no-store",
    });
    if (res.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      return askToken("The API server did not accept that token.");
    }
    if (!res.ok) throw new Error(((await res.json()) as { error?: string }).error ?? `HTTP ${res.status}`);
    next = (await res.json()) as ReportsAnswer;
  } catch (e) {
    status(`could not read reports: ${e instanceof Error ? e.message : String(e)}`);
    timer = setTimeout(() => void refresh(false), POLL_MS);
    return;
  }
  const changed = answer?.version !== next.version;
  answer = next;
  if (changed || force) draw();
  status(`updated ${new Date().toLocaleTimeString()}`);
  timer = setTimeout(() => void refresh(false), POLL_MS);
}

function status(text: string): void {
  lastStatus = text;
  const live = document.getElementById("live");
  if (live !== null) live.textContent = text;
}

/** Reads the policy's status and text for its page, then redraws. */
async function loadPolicy(name: string): Promise<void> {
  const token = sessionStorage.getItem(TOKEN_KEY) ?? "";
  let panel: PolicyPanel;
  try {
    const res = await fetch(`/api/policy?name=${encodeURIComponent(name)}`, {
      headers: { authorization: `Bearer ${token}` },
      cache: "no-store",
    });
    const body = (await res.json()) as { error?: string } & Partial<Extract<PolicyAnswer, { ok: true }>>;
    panel = res.ok
      ? { state: "read", policies: body.policies ?? [], kinds: body.kinds ?? [] }
      : { state: "failed", message: body.error ?? `HTTP ${res.status}` };
  } catch (e) {
    panel = { state: "failed", message: e instanceof Error ? e.message : String(e) };
  }
  policies.set(name, panel);
  const route = parseFragment(location.hash).route;
  if (route.page === "policy" && route.policy === name) draw();
}

function draw(): void {
  if (answer === undefined) return;
  const state = parseFragment(location.hash);
  const route = state.route;
  let panel: PolicyPanel | undefined;
  if (route.page === "policy") {
    panel = policies.get(route.policy);
    if (panel === undefined) {
      panel = { state: "loading" };
      policies.set(route.policy, panel);
      void loadPolicy(route.policy);
    }
  }
  const onFilters = (filters: Filters, typing: boolean): void => {
    const hash = formatFragment({ route: state.route, filters });
    if (typing) {
      // Typing replaces the entry (no history step per key) and keeps the focus in the box.
      history.replaceState(null, "", hash);
      const active = document.activeElement;
      const caret = active instanceof HTMLInputElement ? active.selectionStart : null;
      draw();
      const box = document.querySelector<HTMLInputElement>('input[name="q"]');
      box?.focus();
      if (box !== null && caret !== null) box.setSelectionRange(caret, caret);
    } else location.hash = hash;
  };
  const version = answer.version;
  root().replaceChildren(
    el(
      "header",
      {},
      el("span", { class: "brand" }, "Bylaw"),
      el("span", { id: "live", "aria-live": "polite", "data-version": version }, lastStatus),
      el("button", { type: "button", id: "signout" }, "Forget token"),
    ),
    drawPage({ answer, state, onFilters, policy: panel, whys: { panels: whys, toggle: toggleWhy } }),
  );
  document.getElementById("signout")?.addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    answer = undefined;
    askToken("");
  });
}

window.addEventListener("hashchange", () => {
  // A policy's status and text are read again each time its page is opened.
  const route = parseFragment(location.hash).route;
  if (route.page === "policy") policies.delete(route.policy);
  draw();
});
void refresh(true);
