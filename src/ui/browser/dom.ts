/// <reference lib="dom" />
/**
 * Building the page's elements. Text goes in as text (`textContent`), never as HTML: a policy,
 * resource or message holding markup shows as that markup's characters.
 */

type Child = Node | string | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Readonly<Record<string, string>> = {},
  ...children: readonly Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) {
    if (child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

export function link(href: string, text: string, attrs: Readonly<Record<string, string>> = {}): HTMLAnchorElement {
  return el("a", { ...attrs, href }, text);
}
