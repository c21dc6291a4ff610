/**
 * A Pratt parser for the original JMESPath grammar with go-jmespath's binding powers, error
 * texts and quirks (commas between function arguments and hash pairs are optional; a malformed
 * bare `[1` parses to an Empty node that fails when evaluated).
 */
import type { ComparatorOp, KeyValPair, Node } from "./ast.js";
import { JmesPathSyntaxError, limitError, syntaxError } from "./errors.js";
import type { BoundFunction } from "./function-call.js";
import { tokenize } from "./lexer.js";
import { decodeJsonLiteral, fieldNode, parseInteger } from "./parse-atoms.js";
import { bindingPower, Tok, tokName, type Token, type TokType } from "./tokens.js";

interface ParseOptions {
  readonly maxDepth: number;
  /** Binds function names at parse time; omitted (e.g. for `formatAst`), every call is unbound. */
  readonly resolve?: (name: string) => BoundFunction | undefined;
}

const IDENTITY: Node = Object.freeze({ type: "Identity" });
const CURRENT: Node = Object.freeze({ type: "Current" });
const EMPTY: Node = Object.freeze({ type: "Empty" });
const COMPARATORS: Partial<Record<TokType, ComparatorOp>> = {
  [Tok.EQ]: "==",
  [Tok.NE]: "!=",
  [Tok.LT]: "<",
  [Tok.LTE]: "<=",
  [Tok.GT]: ">",
  [Tok.GTE]: ">=",
};

class Parser {
  private index = 0;
  private depth = 0;

  constructor(
    private readonly src: string,
    private readonly tokens: readonly Token[],
    private readonly opts: ParseOptions,
  ) {}

  parse(): Node {
    const node = this.expression(0);
    if (this.current() !== Tok.EOF)
      throw this.error(`Unexpected token at the end of the expression: ${tokName(this.current())}`);
    return node;
  }

  private token(ahead: number): Token {
    return (
      this.tokens[this.index + ahead] ??
      this.tokens[this.tokens.length - 1] ?? { type: Tok.EOF, value: "", position: this.src.length }
    );
  }

  private current(): TokType {
    return this.token(0).type;
  }

  private error(msg: string, at: Token = this.token(0)): JmesPathSyntaxError {
    return syntaxError(msg, this.src, at.position);
  }

  private match(t: TokType): void {
    if (this.current() !== t) throw this.error(`Expected ${tokName(t)}, received: ${tokName(this.current())}`);
    this.index++;
  }

  private expression(bp: number): Node {
    if (++this.depth > this.opts.maxDepth) {
      throw limitError(`JMESPath expression is nested deeper than ${this.opts.maxDepth} levels`);
    }
    const first = this.token(0);
    this.index++;
    let left = this.nud(first);
    while (bp < bindingPower(this.current())) {
      const t = this.current();
      this.index++;
      left = this.led(t, left);
    }
    this.depth--;
    return left;
  }

  private nud(tok: Token): Node {
    switch (tok.type) {
      case Tok.JSONLiteral:
        return { type: "Literal", value: decodeJsonLiteral(tok, this.src, this.opts.maxDepth) };
      case Tok.StringLiteral:
        return { type: "Literal", value: tok.value };
      case Tok.UnquotedIdentifier:
        return fieldNode(tok.value);
      case Tok.QuotedIdentifier:
        if (this.current() === Tok.Lparen) throw this.error("Can't have quoted identifier as function name.", tok);
        return fieldNode(tok.value);
      case Tok.Star: {
        const right = this.current() === Tok.Rbracket ? IDENTITY : this.projectionRhs(bindingPower(Tok.Star));
        return { type: "ValueProjection", left: IDENTITY, right };
      }
      case Tok.Filter:
        return this.filter(IDENTITY);
      case Tok.Lbrace:
        return this.multiSelectHash();
      case Tok.Flatten: {
        const left: Node = { type: "Flatten", child: IDENTITY };
        return { type: "Projection", left, right: this.projectionRhs(bindingPower(Tok.Flatten)) };
      }
      case Tok.Lbracket:
        return this.bracketNud();
      case Tok.Current:
        return CURRENT;
      case Tok.Expref:
        return { type: "ExpRef", child: this.expression(bindingPower(Tok.Expref)) };
      case Tok.Not:
        return { type: "Not", child: this.expression(bindingPower(Tok.Not)) };
      case Tok.Lparen: {
        const inner = this.expression(0);
        this.match(Tok.Rparen);
        return inner;
      }
      case Tok.EOF:
        throw this.error("Incomplete expression", tok);
      default:
        throw this.error(`Invalid token: ${tokName(tok.type)}`, tok);
    }
  }

  private bracketNud(): Node {
    const t = this.current();
    if (t === Tok.Number || t === Tok.Colon) {
      let right: Node;
      try {
        right = this.indexExpression();
      } catch (e) {
        // go-jmespath drops this error and returns an empty node (evaluation then fails).
        if (e instanceof JmesPathSyntaxError) return EMPTY;
        throw e;
      }
      return this.projectIfSlice(IDENTITY, right);
    }
    if (t === Tok.Star && this.token(1).type === Tok.Rbracket) {
      this.index += 2;
      return { type: "Projection", left: IDENTITY, right: this.projectionRhs(bindingPower(Tok.Star)) };
    }
    return this.multiSelectList();
  }

  private led(t: TokType, left: Node): Node {
    switch (t) {
      case Tok.Dot:
        if (this.current() !== Tok.Star) {
          return { type: "Subexpression", left, right: this.dotRhs(bindingPower(Tok.Dot)) };
        }
        this.index++;
        return { type: "ValueProjection", left, right: this.projectionRhs(bindingPower(Tok.Dot)) };
      case Tok.Pipe:
        return { type: "Pipe", left, right: this.expression(bindingPower(Tok.Pipe)) };
      case Tok.Or:
        return { type: "Or", left, right: this.expression(bindingPower(Tok.Or)) };
      case Tok.And:
        return { type: "And", left, right: this.expression(bindingPower(Tok.And)) };
      case Tok.Lparen:
        return this.functionCall(left);
      case Tok.Filter:
        return this.filter(left);
      case Tok.Flatten:
        return {
          type: "Projection",
          left: { type: "Flatten", child: left },
          right: this.projectionRhs(bindingPower(Tok.Flatten)),
        };
      case Tok.Lbracket: {
        const cur = this.current();
        if (cur === Tok.Number || cur === Tok.Colon) return this.projectIfSlice(left, this.indexExpression());
        this.match(Tok.Star);
        this.match(Tok.Rbracket);
        return { type: "Projection", left, right: this.projectionRhs(bindingPower(Tok.Star)) };
      }
      default: {
        const op = COMPARATORS[t];
        if (op === undefined) throw this.error(`Unexpected token: ${tokName(t)}`);
        return { type: "Comparator", op, left, right: this.expression(bindingPower(t)) };
      }
    }
  }

  private functionCall(callee: Node): Node {
    let name: string;
    if (callee.type === "Field") name = callee.name;
    else if (callee.type === "Literal" && typeof callee.value === "string") name = callee.value;
    else throw this.error("Invalid function name: only an identifier can be called");
    const args: Node[] = [];
    while (this.current() !== Tok.Rparen) {
      const arg = this.expression(0);
      if (this.current() === Tok.Comma) this.index++;
      args.push(arg);
    }
    this.match(Tok.Rparen);
    return { type: "Function", name, args, fn: this.opts.resolve?.(name) };
  }

  private indexExpression(): Node {
    if (this.current() === Tok.Colon || this.token(1).type === Tok.Colon) return this.sliceExpression();
    const index = parseInteger(this.token(0), this.src);
    this.index++;
    this.match(Tok.Rbracket);
    return { type: "Index", index };
  }

  private sliceExpression(): Node {
    const parts: (number | null)[] = [null, null, null];
    let slot = 0;
    while (this.current() !== Tok.Rbracket && slot < 3) {
      const cur = this.current();
      if (cur === Tok.Colon) {
        slot++;
      } else if (cur === Tok.Number) {
        parts[slot] = parseInteger(this.token(0), this.src);
      } else {
        throw this.error(`Expected tColon or tNumber, received: ${tokName(cur)}`);
      }
      this.index++;
    }
    this.match(Tok.Rbracket);
    return { type: "Slice", start: parts[0] ?? null, stop: parts[1] ?? null, step: parts[2] ?? null };
  }

  private multiSelectList(): Node {
    const children: Node[] = [];
    for (;;) {
      children.push(this.expression(0));
      if (this.current() === Tok.Rbracket) break;
      this.match(Tok.Comma);
    }
    this.match(Tok.Rbracket);
    return { type: "MultiSelectList", children };
  }

  private multiSelectHash(): Node {
    const pairs: KeyValPair[] = [];
    for (;;) {
      const keyTok = this.token(0);
      if (keyTok.type !== Tok.UnquotedIdentifier && keyTok.type !== Tok.QuotedIdentifier) {
        throw this.error("Expected tQuotedIdentifier or tUnquotedIdentifier");
      }
      this.index++;
      this.match(Tok.Colon);
      pairs.push({ key: keyTok.value, value: this.expression(0) });
      const cur = this.current();
      if (cur === Tok.Comma) {
        this.index++;
      } else if (cur === Tok.Rbrace) {
        this.index++;
        break;
      }
    }
    return { type: "MultiSelectHash", pairs };
  }

  private projectIfSlice(left: Node, right: Node): Node {
    const indexed: Node = { type: "IndexExpression", left, right };
    if (right.type !== "Slice") return indexed;
    return { type: "Projection", left: indexed, right: this.projectionRhs(bindingPower(Tok.Star)) };
  }

  private filter(left: Node): Node {
    const condition = this.expression(0);
    this.match(Tok.Rbracket);
    const right = this.current() === Tok.Flatten ? IDENTITY : this.projectionRhs(bindingPower(Tok.Filter));
    return { type: "FilterProjection", left, right, condition };
  }

  private dotRhs(bp: number): Node {
    const cur = this.current();
    if (cur === Tok.QuotedIdentifier || cur === Tok.UnquotedIdentifier || cur === Tok.Star) return this.expression(bp);
    if (cur === Tok.Lbracket) {
      this.index++;
      return this.multiSelectList();
    }
    if (cur === Tok.Lbrace) {
      this.index++;
      return this.multiSelectHash();
    }
    throw this.error("Expected identifier, lbracket, or lbrace");
  }

  private projectionRhs(bp: number): Node {
    const cur = this.current();
    if (bindingPower(cur) < 10) return IDENTITY;
    if (cur === Tok.Lbracket || cur === Tok.Filter) return this.expression(bp);
    if (cur === Tok.Dot) {
      this.index++;
      return this.dotRhs(bp);
    }
    throw this.error("Error");
  }
}

/** Parses an expression into a syntax tree. Throws `JmesPathError` ("syntax" or "limit"). */
export function parse(expression: string, opts: ParseOptions): Node {
  return new Parser(expression, tokenize(expression), opts).parse();
}
