import { EVENT_ID, getScalarValue, SCALAR_STYLE, type Event, type ScalarEvent } from "js-yaml";
import type { ValueBuilder } from "./value-builder.js";

/**
 * Feed the first document of a js-yaml event stream to a ValueBuilder. Later documents in the
 * same text (after a `...` marker) are ignored, as go-yaml's Unmarshal reads only the first.
 */
export function buildFromEvents(events: readonly Event[], text: string, builder: ValueBuilder): void {
  let depth = 0;
  let started = false;
  for (const event of events) {
    switch (event.type) {
      case EVENT_ID.DOCUMENT:
        if (started) return;
        started = true;
        break;
      case EVENT_ID.MAPPING:
        depth++;
        builder.startMapping(slice(text, event.anchorStart, event.anchorEnd), event.start);
        break;
      case EVENT_ID.SEQUENCE:
        depth++;
        builder.startSequence(slice(text, event.anchorStart, event.anchorEnd), event.start);
        break;
      case EVENT_ID.SCALAR:
        builder.scalar(
          getScalarValue(text, event),
          event.style === SCALAR_STYLE.PLAIN,
          slice(text, event.tagStart, event.tagEnd),
          slice(text, event.anchorStart, event.anchorEnd),
          scalarStart(event),
        );
        break;
      case EVENT_ID.ALIAS:
        builder.alias(text.slice(event.anchorStart, event.anchorEnd), Math.max(0, event.anchorStart - 1));
        break;
      case EVENT_ID.POP:
        if (depth === 0) return;
        depth--;
        builder.end();
        break;
    }
  }
}

function slice(text: string, start: number, end: number): string | undefined {
  return start < 0 ? undefined : text.slice(start, end);
}

/** Where a scalar node starts, properties (`&anchor`, `!tag`) and opening quote included. */
function scalarStart(event: ScalarEvent): number {
  const quoted = event.style === SCALAR_STYLE.SINGLE_QUOTED || event.style === SCALAR_STYLE.DOUBLE_QUOTED;
  let start = quoted ? event.valueStart - 1 : event.valueStart;
  if (event.tagStart >= 0) start = Math.min(start, event.tagStart);
  if (event.anchorStart > 0) start = Math.min(start, event.anchorStart - 1);
  return start;
}
