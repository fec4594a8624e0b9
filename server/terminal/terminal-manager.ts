import type { WebSocket } from "ws";
import type { TurnId } from "../db/ids";
import { ConflictError, NotFoundError } from "../http/route";
import { log } from "../runtime/log";
import { sandboxDriver } from "../runtime/services";
import { SandboxError } from "../sandbox/errors";
import { singleton } from "../runtime/singleton";
import { terminalConfig } from "./terminal-config";
import { CheckpointUnavailableError, TerminalsFullError, TerminalTurnNotFoundError } from "./terminal-errors";
import type { ServerMessage, TerminalInfo } from "./terminal-protocol";
import { TerminalSession } from "./terminal-session";
import { loadTerminalOrigin } from "./terminal-store";

/**
 * Live terminals of this process. Shared through globalThis: the route handlers (Next's bundle)
 * open terminals, the WebSocket route (the custom server's copy of this module) attaches to them.
 */
interface Registry {
  sessions: Map<string, TerminalSession>;
  starting: number;
  /** Why recently ended terminals ended, so a late reattach can say so. */
  ended: Map<string, string>;
}

const registry = singleton<Registry>("terminals", () => ({ sessions: new Map(), starting: 0, ended: new Map() }));

/** Where opening a terminal spent its time, in ms (sent as a Server-Timing header). */
export type OpenTimings = Record<"origin" | "driver" | "sandbox" | "shell", number>;

/** Restore `turnId`'s checkpoint into a fresh sandbox with a shell in it. */
export async function openTerminal(turnId: TurnId): Promise<{ sessionId: string; timings: OpenTimings }> {
  const config = terminalConfig();
  let t = performance.now();
  const lap = () => {
    const now = performance.now();
    const ms = now - t;
    t = now;
    return ms;
  };
  if (registry.sessions.size + registry.starting >= config.maxTerminals) {
    throw new TerminalsFullError(`All ${config.maxTerminals} terminals are in use. Close one (or wait for an idle one to end), then try again.`);
  }
  registry.starting += 1;
  try {
    const origin = await loadTerminalOrigin(turnId);
    const originMs = lap();
    if (!origin) throw new TerminalTurnNotFoundError(`Turn ${turnId} does not exist in this server's database.`);
    const c = origin.checkpoint;
    if (!c) throw new TerminalTurnNotFoundError(`Turn ${origin.turnIndex} has no checkpoint: there is nothing to restore.`);
    if (c.state === "collected") {
      throw new CheckpointUnavailableError(`The checkpoint of turn ${origin.turnIndex} was collected to free space and can no longer be restored. Open a terminal on a turn whose checkpoint is kept.`);
    }
    const driver = await sandboxDriver();
    const driverMs = lap();
    if (c.backend !== driver.name) {
      throw new CheckpointUnavailableError(`Turn ${origin.turnIndex} was checkpointed by the ${c.backend} driver; this server runs the ${driver.name} driver.`);
    }
    const sandbox = await driver.create({ fromCheckpoint: c.ref, workdir: origin.workdir, env: origin.env, labels: { purpose: "terminal", turn: turnId } });
    const sandboxMs = lap();
    const session = new TerminalSession(origin, sandbox, config, (s, reason) => {
      registry.sessions.delete(s.id);
      registry.ended.set(s.id, reason);
      if (registry.ended.size > 200) registry.ended.delete(registry.ended.keys().next().value!);
      log.info(`terminal ${s.id.slice(0, 8)} on turn ${origin.turnIndex} ended: ${reason}`);
    });
    try {
      await session.start();
    } catch (error) {
      await sandbox.destroy().catch(() => undefined);
      throw error;
    }
    registry.sessions.set(session.id, session);
    return { sessionId: session.id, timings: { origin: originMs, driver: driverMs, sandbox: sandboxMs, shell: lap() } };
  } finally {
    registry.starting -= 1;
  }
}

export function listTerminals(): TerminalInfo[] {
  return [...registry.sessions.values()].map((s) => s.info()).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/**
 * Open a terminal for a page's socket and attach it at once: the page's round trip for POST
 * /api/terminals and its second connection are saved. A refusal is sent as `refused` with the
 * sentence the route would answer.
 */
export async function openTerminalOnSocket(turnId: TurnId, ws: WebSocket): Promise<void> {
  let sessionId: string;
  try {
    const started = Date.now();
    const opened = await openTerminal(turnId);
    sessionId = opened.sessionId;
    log.debug("terminal opened for a socket", { terminal: sessionId.slice(0, 8), startedAt: started, ...opened.timings });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof ConflictError || error instanceof NotFoundError || error instanceof SandboxError)) log.error("opening a terminal failed", { turnId, error: error instanceof Error ? error.stack : message });
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: "refused", message } satisfies ServerMessage));
    ws.close(4409, "not opened");
    return;
  }
  if (ws.readyState === ws.OPEN) return attachTerminal(sessionId, ws);
  // The page left before it learned the terminal's id, so nothing can reattach to it.
  await closeTerminal(sessionId);
}

/** The WebSocket side: attach a page to a terminal, or tell it why it cannot. */
export function attachTerminal(sessionId: string, ws: WebSocket): void {
  const session = registry.sessions.get(sessionId);
  if (session) return session.attach(ws);
  const reason = registry.ended.get(sessionId);
  ws.send(JSON.stringify({ type: "ended", reason: reason ? `This terminal has ended: ${reason}.` : "This terminal does not exist on this server (it ended, or the server restarted)." }));
  ws.close(4404, "no such terminal");
}

/** End one terminal; false when it was not running. */
export async function closeTerminal(sessionId: string): Promise<boolean> {
  const session = registry.sessions.get(sessionId);
  if (!session) return false;
  await session.end("closed");
  return true;
}

/** End every terminal (tests, shutdown). */
export async function endAllTerminals(reason: string): Promise<void> {
  await Promise.all([...registry.sessions.values()].map((s) => s.end(reason)));
}
