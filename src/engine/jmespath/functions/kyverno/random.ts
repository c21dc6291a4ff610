/**
 * `random`: a random string matching a regular expression (Kyverno uses goregen). The pattern is
 * validated with RE2 (Go's error texts), then generated from a small syntax tree; unbounded
 * repeats produce at most 10 extra copies, and `.` or negated classes draw printable ASCII.
 */
import { RE2JS } from "re2js";
import type { Random } from "../../../ports.js";
import type { FunctionDef } from "../../types.js";
import { stringArg } from "./args.js";
import { charge } from "./budget.js";
import { goError } from "./errors.js";

type Range = readonly [number, number];
type Node =
  | { readonly kind: "lit"; readonly cp: number; readonly fold: boolean }
  | { readonly kind: "class"; readonly ranges: readonly Range[]; readonly negated: boolean }
  | { readonly kind: "seq"; readonly items: readonly Node[] }
  | { readonly kind: "alt"; readonly items: readonly Node[] }
  | { readonly kind: "rep"; readonly min: number; readonly max: number; readonly node: Node };

const MAX_UNBOUNDED = 10;
/** Nested unbounded repeats multiply; stop well before memory runs out. */
const MAX_OUTPUT = 1_000_000;
const PRINTABLE: Range = [0x20, 0x7e];
const DIGIT: Range[] = [[0x30, 0x39]];
const WORD: Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Range[] = [
  [0x09, 0x0a],
  [0x0c, 0x0d],
  [0x20, 0x20],
];
const EMPTY: Node = { kind: "seq", items: [] };
const CONTROL_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };

class Parser {
  private i = 0;
  private readonly chars: string[];
  constructor(pattern: string) {
    this.chars = [...pattern];
  }

  parse(): Node {
    return this.alternation(false);
  }

  private peek(): string | undefined {
    return this.chars[this.i];
  }

  private alternation(fold: boolean): Node {
    const items: Node[] = [this.sequence(fold)];
    while (this.peek() === "|") {
      this.i++;
      items.push(this.sequence(fold));
    }
    return items.length === 1 ? (items[0] ?? EMPTY) : { kind: "alt", items };
  }

  private sequence(foldIn: boolean): Node {
    let fold = foldIn;
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== "|" && c !== ")"; c = this.peek()) {
      if (
        c === "(" &&
        this.chars[this.i + 1] === "?" &&
        /^[imsU-]+\)/.test(this.chars.slice(this.i + 2, this.i + 12).join(""))
      ) {
        const flags = this.chars.slice(this.i + 2, this.chars.indexOf(")", this.i)).join("");
        fold = flags.split("-")[0]?.includes("i") ?? fold;
        this.i += flags.length + 3;
        continue;
      }
      items.push(this.quantified(this.atom(fold)));
    }
    return { kind: "seq", items };
  }

  private quantified(node: Node): Node {
    let n = node;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === "*") [min, max] = [0, MAX_UNBOUNDED];
      else if (c === "+") [min, max] = [1, MAX_UNBOUNDED];
      else if (c === "?") [min, max] = [0, 1];
      else if (c === "{") {
        const m = /^\{([0-9]+)(,([0-9]*))?\}/.exec(this.chars.slice(this.i, this.i + 16).join(""));
        if (!m) return n;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? min + MAX_UNBOUNDED : Number(m[3]);
        this.i += m[0].length - 1;
      } else return n;
      this.i++;
      if (this.peek() === "?") this.i++;
      n = { kind: "rep", min, max, node: n };
    }
  }

  private atom(fold: boolean): Node {
    const c = this.chars[this.i++] ?? "";
    if (c === "(") {
      if (this.peek() === "?") {
        const close = this.chars.indexOf(":", this.i);
        const named = this.chars.indexOf(">", this.i);
        this.i = this.chars[this.i + 1] === "P" || this.chars[this.i + 1] === "<" ? named + 1 : close + 1;
      }
      const inner = this.alternation(fold);
      this.i++;
      return inner;
    }
    if (c === "[") return this.charClass();
    if (c === ".") return { kind: "class", ranges: [[0x0a, 0x0a]], negated: true };
    if (c === "^" || c === "$") return EMPTY;
    if (c === "\\") return this.escape(fold, false) ?? EMPTY;
    return { kind: "lit", cp: c.codePointAt(0) ?? 0, fold };
  }

  /** An escape; in a class, returns its ranges through a class node. Anchors give undefined. */
  private escape(fold: boolean, inClass: boolean): Node | undefined {
    const c = this.chars[this.i++] ?? "";
    const cls = (ranges: Range[], negated: boolean): Node => ({ kind: "class", ranges, negated });
    switch (c) {
      case "d":
        return cls(DIGIT, false);
      case "D":
        return cls(DIGIT, true);
      case "w":
        return cls(WORD, false);
      case "W":
        return cls(WORD, true);
      case "s":
        return cls(SPACE, false);
      case "S":
        return cls(SPACE, true);
      case "p":
      case "P": {
        if (this.peek() === "{") this.i = this.chars.indexOf("}", this.i) + 1;
        else this.i++;
        return cls(
          [
            [0x41, 0x5a],
            [0x61, 0x7a],
          ],
          c === "P",
        );
      }
      case "x": {
        const m = /^(\{([0-9a-fA-F]+)\}|[0-9a-fA-F]{2})/.exec(this.chars.slice(this.i, this.i + 10).join(""));
        this.i += m?.[0].length ?? 0;
        return { kind: "lit", cp: parseInt(m?.[2] ?? m?.[1] ?? "0", 16), fold };
      }
      case "b":
      case "B":
      case "A":
      case "z":
        return inClass ? { kind: "lit", cp: 8, fold } : undefined;
      default: {
        const control = CONTROL_ESCAPES[c];
        return { kind: "lit", cp: control ?? c.codePointAt(0) ?? 0, fold };
      }
    }
  }

  private charClass(): Node {
    const negated = this.peek() === "^";
    if (negated) this.i++;
    const ranges: Range[] = [];
    let first = true;
    while (this.i < this.chars.length && (this.peek() !== "]" || first)) {
      first = false;
      let lo: number;
      if (this.peek() === "[" && this.chars[this.i + 1] === ":") {
        const end = this.chars.indexOf("]", this.i);
        const name = this.chars.slice(this.i + 2, end - 1).join("");
        this.i = end + 1;
        ranges.push(
          ...(name === "digit"
            ? DIGIT
            : name === "space"
              ? SPACE
              : name === "alpha"
                ? ([
                    [0x41, 0x5a],
                    [0x61, 0x7a],
                  ] as Range[])
                : WORD),
        );
        continue;
      }
      if (this.peek() === "\\") {
        this.i++;
        const e = this.escape(false, true);
        if (e?.kind === "class") {
          ranges.push(...(e.negated ? complement(e.ranges) : e.ranges));
          continue;
        }
        lo = e?.kind === "lit" ? e.cp : 0;
      } else lo = this.chars[this.i++]?.codePointAt(0) ?? 0;
      let hi = lo;
      if (this.peek() === "-" && this.chars[this.i + 1] !== "]" && this.chars[this.i + 1] !== undefined) {
        this.i++;
        if (this.peek() === "\\") {
          this.i++;
          const e = this.escape(false, true);
          hi = e?.kind === "lit" ? e.cp : lo;
        } else hi = this.chars[this.i++]?.codePointAt(0) ?? lo;
      }
      ranges.push([lo, hi]);
    }
    this.i++;
    return { kind: "class", ranges, negated };
  }
}

/** Printable ASCII minus the given ranges. */
function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  for (let cp = PRINTABLE[0]; cp <= PRINTABLE[1]; cp++) {
    if (!ranges.some(([lo, hi]) => cp >= lo && cp <= hi)) out.push([cp, cp]);
  }
  return out;
}

function pick(random: Random, n: number): number {
  return Math.min(n - 1, Math.floor(random.next() * n));
}

/** Generates text for a node, charging one unit per character produced. */
function generate(node: Node, random: Random, charge: (n: number) => void): string {
  switch (node.kind) {
    case "lit": {
      const ch = String.fromCodePoint(node.cp);
      charge(1);
      if (!node.fold) return ch;
      return pick(random, 2) === 0 ? ch.toLowerCase() : ch.toUpperCase();
    }
    case "class": {
      const ranges = node.negated ? complement(node.ranges) : node.ranges;
      const total = ranges.reduce((n, [lo, hi]) => n + (hi - lo + 1), 0);
      if (total <= 0) return "";
      charge(1);
      let k = pick(random, total);
      for (const [lo, hi] of ranges) {
        if (k <= hi - lo) return String.fromCodePoint(lo + k);
        k -= hi - lo + 1;
      }
      return "";
    }
    case "seq":
      return node.items.map((n) => generate(n, random, charge)).join("");
    case "alt":
      return generate(node.items[pick(random, node.items.length)] ?? EMPTY, random, charge);
    case "rep": {
      const count = node.min + pick(random, node.max - node.min + 1);
      let out = "";
      for (let i = 0; i < count; i++) out += generate(node.node, random, charge);
      return out;
    }
  }
}

/** A random string for `pattern`, or Go's error text. */
export function randomFromPattern(
  pattern: string,
  random: Random,
  charge: (n: number) => void = () => undefined,
): string | { error: string } {
  if (pattern === "") return { error: "no pattern provided" };
  try {
    RE2JS.compile(pattern);
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
  let produced = 0;
  try {
    return generate(new Parser(pattern).parse(), random, (n) => {
      produced += n;
      if (produced > MAX_OUTPUT) throw new RangeError(`pattern generates more than ${MAX_OUTPUT} characters`);
      charge(n);
    });
  } catch (e) {
    if (e instanceof RangeError) return { error: e.message };
    throw e;
  }
}

export const randomFunctions: readonly FunctionDef[] = [
  {
    name: "random",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "Generates a random sequence of characters",
    call: (args, ctx) => {
      const r = randomFromPattern(stringArg("random", args, 0), ctx.ports.random, (n) => charge(ctx, n));
      if (typeof r !== "string") throw goError(r.error);
      return r;
    },
  },
];
