/** What the webhook server (webhook-server.ts) keeps per HTTP exchange while it reads, batches and answers it. */
import type { IncomingMessage, ServerResponse } from "node:http";

/** A request's share of the in-flight budget. */
export interface Ticket {
  held: number;
}

/**
 * One HTTP exchange: the request, its response, the route its metrics are labelled with (its path,
 * or "unmatched"), and when it started on the server's clock. Every step that answers takes it.
 */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly route: string;
  readonly started: number;
  /** Its share of the in-flight budget, for what it holds beyond its body (its parsed value). */
  readonly ticket?: Ticket;
}

/** A complete body waiting for its path's batch run. */
export interface Waiting {
  readonly ex: Exchange;
  readonly text: string;
}
