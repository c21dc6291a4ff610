/**
 * Answers of JMESPath functions that depend on their text argument alone (`parse_yaml`,
 * `parse_json`), kept for one request: a policy library parses the same ConfigMap value in several
 * strings of one rule (other/dns-policy-and-dns-config does it twice per review), and each parse is
 * the same work. One memo lives in the prepared request (pipeline/rule-scope.ts), never across
 * requests, so nothing one review does reaches another's answer.
 *
 * A kept answer costs what the parse cost: its units are charged to the asking evaluation's budget
 * again, so a budget runs out exactly where it would without the memo. Each answer handed out is a
 * copy (a caller may build on the value it gets; none sees another's changes).
 */
import type { JsonValue } from "../api/json.js";
import { cloneJson } from "../api/json-copy.js";

/** A function's answer: its value, or its error message (thrown by the caller as the function's own error). */
export type MemoAnswer =
  { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly error: string };

interface Kept {
  readonly answer: MemoAnswer;
  /** The budget units the answer's computation charged. */
  readonly units: number;
}

/**
 * At most this many answers per request, this much text in their keys, and answers that cost this
 * many budget units together (what a value holds grows with what its parse charged); past any of
 * them, answers are computed each time.
 */
const MAX_ENTRIES = 64;
const MAX_TEXT = 1 << 20;
const MAX_UNITS = 1 << 18;

export class FunctionMemo {
  readonly #kept = new Map<string, Kept>();
  #text = 0;
  #units = 0;

  /**
   * The answer of function `name` for `text`: the kept one (its units charged again), or `compute`'s,
   * which charges through the `charge` it is given. A computation that throws (the budget ran out,
   * an interruption) keeps nothing.
   */
  answer(
    name: string,
    text: string,
    charge: (units: number) => void,
    compute: (charge: (units: number) => void) => MemoAnswer,
  ): MemoAnswer {
    const key = `${name}\u0000${text}`;
    const kept = this.#kept.get(key);
    if (kept !== undefined) {
      charge(kept.units);
      return handedOut(kept.answer);
    }
    let units = 0;
    const answer = compute((n) => {
      units += n;
      charge(n);
    });
    if (this.#kept.size < MAX_ENTRIES && this.#text + key.length <= MAX_TEXT && this.#units + units <= MAX_UNITS) {
      this.#kept.set(key, { answer: handedOut(answer), units });
      this.#text += key.length;
      this.#units += units;
    }
    return answer;
  }
}

function handedOut(answer: MemoAnswer): MemoAnswer {
  return answer.ok && typeof answer.value === "object" && answer.value !== null
    ? { ok: true, value: cloneJson(answer.value) }
    : answer;
}
