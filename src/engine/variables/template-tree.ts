/**
 * The variables of one policy string, nested as the policy's text nests them, found once. Only
 * the policy's own text is a template: a value a variable gives (from the request, the context or
 * the cluster) is data and is never scanned for `{{ }}` again (tenant-isolation.md; known-gaps.tsv
 * says where this differs from Kyverno, whose substitution re-scans the string after every pass).
 *
 * The scan follows Kyverno's passes over the text alone: pass 1 finds the innermost variables
 * (Kyverno's regular expression, scanner.ts); each is replaced by a marker that holds no brace or
 * backslash, and the text is scanned again, so `{{ a.{{ b }} }}` gives `b` in pass 1 and
 * `a.<marker>` in pass 2, as Kyverno resolves it when `b`'s value holds no braces. The escapes
 * `\{{ … }}` left in the text are then unescaped. The variables are numbered in Kyverno's order
 * of evaluation: pass by pass, left to right; a variable's inner pieces name only earlier ones.
 */
import { scanVariables, unescapeVariables } from "./scanner.js";

/** A piece of text: the policy's own characters, or the number of a variable whose value goes there. */
export type TemplatePiece = string | number;

interface TemplateNode {
  /** The text between `{{` and `}}`, in pieces (the value of a nested variable is spliced in). */
  readonly inner: readonly TemplatePiece[];
  /** The pass that finds it: 1 for a variable with no variable inside. */
  readonly pass: number;
}

export interface TemplateTree {
  readonly nodes: readonly TemplateNode[];
  /** The whole string, in pieces, after the escapes are removed. */
  readonly top: readonly TemplatePiece[];
  /** Set when the text nests variables deeper than `maxPasses`: the first variable still unresolved. */
  readonly unresolved?: string;
}

/** A character the text does not hold, to mark where a variable was. */
function markerFor(text: string): string {
  for (let c = 0xe000; ; c++) {
    const m = String.fromCharCode(c);
    if (!text.includes(m)) return m;
  }
}

function pieces(text: string, marker: string): TemplatePiece[] {
  const out: TemplatePiece[] = [];
  text.split(marker).forEach((s, i) => {
    if (i % 2 === 1) out.push(Number(s));
    else if (s !== "") out.push(s);
  });
  return out;
}

/** `text` as the policy wrote it: each marker replaced by the variable it stands for. */
function expand(text: string, marker: string, nodes: readonly TemplateNode[]): string {
  return pieces(text, marker)
    .map((p) => {
      if (typeof p === "string") return p;
      const inner = nodes[p]?.inner ?? [];
      return `{{${inner.map((q) => (typeof q === "string" ? q : expand(marker + String(q) + marker, marker, nodes))).join("")}}}`;
    })
    .join("");
}

export function parseTemplateTree(text: string, maxPasses: number): TemplateTree {
  const marker = markerFor(text);
  const nodes: TemplateNode[] = [];
  let skeleton = text;
  let matches = scanVariables(skeleton);
  for (let pass = 1; matches.length > 0; pass++) {
    if (pass > maxPasses) {
      const first = matches[0];
      const unresolved = first === undefined ? "" : expand(first.expression, marker, nodes);
      return { nodes, top: pieces(skeleton, marker), unresolved };
    }
    let out = "";
    let last = 0;
    for (const m of matches) {
      nodes.push({ inner: pieces(skeleton.slice(m.start + 2, m.end - 2), marker), pass });
      out += skeleton.slice(last, m.start) + marker + String(nodes.length - 1) + marker;
      last = m.end;
    }
    skeleton = out + skeleton.slice(last);
    matches = scanVariables(skeleton);
  }
  return { nodes, top: pieces(unescapeVariables(skeleton), marker) };
}
