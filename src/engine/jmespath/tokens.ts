/**
 * Token kinds of the original JMESPath grammar as go-jmespath names them; the names appear in
 * syntax errors (`Expected tStar, received: tUnquotedIdentifier`). There is no `$` root token:
 * Kyverno's fork predates it.
 */

export const Tok = {
  Unknown: 0,
  Star: 1,
  Dot: 2,
  Filter: 3,
  Flatten: 4,
  Lparen: 5,
  Rparen: 6,
  Lbracket: 7,
  Rbracket: 8,
  Lbrace: 9,
  Rbrace: 10,
  Or: 11,
  Pipe: 12,
  Number: 13,
  UnquotedIdentifier: 14,
  QuotedIdentifier: 15,
  Comma: 16,
  Colon: 17,
  LT: 18,
  LTE: 19,
  GT: 20,
  GTE: 21,
  EQ: 22,
  NE: 23,
  JSONLiteral: 24,
  StringLiteral: 25,
  Current: 26,
  Expref: 27,
  And: 28,
  Not: 29,
  EOF: 30,
} as const;

export type TokType = (typeof Tok)[keyof typeof Tok];

const NAMES: readonly string[] = Object.keys(Tok).map((k) => "t" + k);

/** The Go name of a token kind, e.g. `tRbracket`. */
export function tokName(t: TokType): string {
  return NAMES[t] ?? "tUnknown";
}

export interface Token {
  readonly type: TokType;
  readonly value: string;
  /** Offset in the expression (UTF-16 index). */
  readonly position: number;
}

/** Pratt binding powers, as go-jmespath assigns them. Tokens not listed bind with 0. */
const BINDING: Partial<Record<TokType, number>> = {
  [Tok.Pipe]: 1,
  [Tok.Or]: 2,
  [Tok.And]: 3,
  [Tok.EQ]: 5,
  [Tok.LT]: 5,
  [Tok.LTE]: 5,
  [Tok.GT]: 5,
  [Tok.GTE]: 5,
  [Tok.NE]: 5,
  [Tok.Flatten]: 9,
  [Tok.Star]: 20,
  [Tok.Filter]: 21,
  [Tok.Dot]: 40,
  [Tok.Not]: 45,
  [Tok.Lbrace]: 50,
  [Tok.Lbracket]: 55,
  [Tok.Lparen]: 60,
};

export function bindingPower(t: TokType): number {
  return BINDING[t] ?? 0;
}
