/**
 * Guards against alias bombs ("billion laughs"). Every alias is expanded into a copy of the
 * anchored value, so a few lines of YAML can ask for billions of nodes. The ratio rule is
 * go-yaml v2's: once a document has decoded more than 1000 nodes of which more than 100 came from
 * aliases, the share of alias-made nodes may not exceed 99% (for up to 400k nodes), falling
 * linearly to 10% at 4M nodes. On top of that we cap the alias-made nodes outright.
 */
export class AliasBudget {
  private decoded = 0;
  private expanded = 0;

  constructor(private readonly maxAliasNodes: number) {}

  /** Count one node read from the source text. */
  countNode(): void {
    this.decoded++;
  }

  /** The number of nodes counted so far (used to size anchored values). */
  get count(): number {
    return this.decoded;
  }

  /**
   * Count the expansion of an alias whose anchored value took `size` nodes. Returns an error
   * message when the document asks for too much, before anything is copied.
   */
  expand(size: number): string | undefined {
    this.decoded += size;
    this.expanded += size;
    if (this.expanded > this.maxAliasNodes) {
      return `document contains excessive aliasing (more than ${this.maxAliasNodes} nodes expanded from aliases)`;
    }
    if (this.expanded > 100 && this.decoded > 1000 && this.expanded / this.decoded > allowedAliasRatio(this.decoded)) {
      return "document contains excessive aliasing";
    }
    return undefined;
  }
}

const RATIO_LOW = 400_000;
const RATIO_HIGH = 4_000_000;

function allowedAliasRatio(decoded: number): number {
  if (decoded <= RATIO_LOW) return 0.99;
  if (decoded >= RATIO_HIGH) return 0.1;
  return 0.99 - 0.89 * ((decoded - RATIO_LOW) / (RATIO_HIGH - RATIO_LOW));
}
