import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import { singleton } from "../runtime/singleton";

/** A WebSocket endpoint under /ws/. Auth and origin checks happen before it is called. */
export type WsHandler = (socket: WebSocket, req: IncomingMessage, url: URL) => void;

const routes = singleton("ws-routes", () => new Map<string, WsHandler>());

/** Register the handler of `/ws/<name>` (the terminal, live streams …). */
export function registerWsRoute(name: string, handler: WsHandler): void {
  routes.set(name, handler);
}

export function findWsRoute(pathname: string): WsHandler | undefined {
  const match = /^\/ws\/([a-z0-9-]+)/.exec(pathname);
  return match?.[1] === undefined ? undefined : routes.get(match[1]);
}

// A trivial endpoint that says the socket is authorized; clients use it to check reachability.
registerWsRoute("health", (socket) => {
  socket.send(JSON.stringify({ ok: true }));
  socket.close(1000, "ok");
});
