/**
 * Track a server's connections and the requests in flight on each, for a graceful close: idle
 * keep-alive connections can go at once, busy ones get until the grace period ends. It also caps
 * the connections held: at the cap, a new connection replaces the one that has been idle longest,
 * so that idle connections (2,000 of them, say) cannot lock out the API server or the kubelet's
 * probes; only when every held connection is busy is the new one closed.
 */
import type { Server, Socket } from "node:net";

interface ConnectionTracker {
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
export function trackConnections(
  server: Server,
  secureEvent: "secureConnection" | "connection",
  maxConnections = Number.POSITIVE_INFINITY,
): ConnectionTracker {
  const raw = new Set<Socket>();
  /** Requests in flight per connection, least recently active first (a request's end moves it last). */
  const inFlight = new Map<Socket, number>();
  let draining = false;

  /** Closes the connection idle longest; false when every connection is busy. */
  const evictIdle = (): boolean => {
    for (const [socket, count] of inFlight) {
      if (count === 0 && !socket.destroyed) {
        socket.destroy();
        return true;
      }
    }
    return false;
  };

  server.on("connection", (socket: Socket) => {
    if (raw.size >= maxConnections && !evictIdle()) {
      socket.destroy();
      return;
    }
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
      inFlight.delete(socket);
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
