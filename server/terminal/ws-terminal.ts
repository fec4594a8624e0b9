/** Registers /ws/terminal?session=<id> and /ws/terminal?turn=<turnId>; server/main.ts imports this module once. */
import type { TurnId } from "../db/ids";
import { registerWsRoute } from "../http/ws-routes";
import { attachTerminal, openTerminalOnSocket } from "./terminal-manager";

registerWsRoute("terminal", (socket, _req, url) => {
  const turn = url.searchParams.get("turn");
  if (turn) return void openTerminalOnSocket(turn as TurnId, socket);
  attachTerminal(url.searchParams.get("session") ?? "", socket);
});
