/** Registers /ws/terminal?session=<id>; server/main.ts imports this module once. */
import { registerWsRoute } from "../http/ws-routes";
import { attachTerminal } from "./terminal-manager";

registerWsRoute("terminal", (socket, _req, url) => attachTerminal(url.searchParams.get("session") ?? "", socket));
