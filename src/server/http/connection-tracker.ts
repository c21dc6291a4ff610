/**
 * Track a server's connections and the requests in flight on each, for a graceful close: idle
 * keep-alive connections can go at once, busy ones get until the grace period ends.
 */
import type { Server, Socket } from "node:net";

export interface ConnectionTracker {
  /** Returns the requests now in flight on the socket, this one included. */
  requestStarted(socket: Socket): number;
  requestEnded(socket: Socket): void;
  /** Destroy connections with no request in flight; later ones are ended when their last request ends. */
  closeIdle(): void;
  destroyAll(): void;
}

/**
 * `secureEvent` is the event that hands over the socket requests arrive on: `secureConnection`
 * for TLS, `connection` for plain TCP. Raw TCP sockets are tracked too, so that connections still
 * in their TLS handshake are also cut by destroyAll.
 */
export function trackConnections(server: Server, secureEvent: "secureConnection" | "connection"): ConnectionTracker {
  const raw = new Set<Socket>();
  const inFlight = new Map<Socket, number>();
  let draining = false;

  server.on("connection", (socket: Socket) => {
    raw.add(socket);
    socket.once("close", () => raw.delete(socket));
  });
  server.on(secureEvent, (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once("close", () => inFlight.delete(socket));
  });

  return {
    requestStarted(socket) {
      const count = (inFlight.get(socket) ?? 0) + 1;
      inFlight.set(socket, count);
      return count;
    },
    requestEnded(socket) {
      const count = inFlight.get(socket);
      if (count === undefined) return; // already closed
      const left = Math.max(0, count - 1);
      inFlight.set(socket, left);
      if (draining && left === 0) socket.end();
    },
    closeIdle() {
      draining = true;
      for (const [socket, count] of inFlight) if (count === 0) socket.destroy();
    },
    destroyAll() {
      for (const socket of inFlight.keys()) socket.destroy();
      for (const socket of raw) socket.destroy();
    },
  };
}
