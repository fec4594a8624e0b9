/**
 * The one server process: Next.js pages and route handlers, and WebSocket upgrades
 * on /ws/*, on one port. Run with `npm start` (production) or `npm run dev`.
 */
import http from "node:http";
import path from "node:path";
import next from "next";
import { WebSocketServer } from "ws";
import { ConfigError, env, isLoopbackHost } from "./config/env";
import { migrate } from "./db/migrate";
import { isAllowedOrigin, isAuthorized, presentedToken, TOKEN_COOKIE } from "./http/auth";
import { findWsRoute } from "./http/ws-routes";
import "./terminal/ws-terminal";
import { recoverAfterRestart } from "./runtime/background";
import { log } from "./runtime/log";
import { sandboxDriver } from "./runtime/services";

const root = path.resolve(import.meta.dirname, "..");

function fail(message: string): never {
  process.stderr.write(`sprout: ${message}\n`);
  process.exit(1);
}

function refuseUpgrade(socket: import("node:stream").Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

async function main(): Promise<void> {
  const dev = process.argv.includes("--dev");
  process.chdir(root);
  const config = env();

  const applied = await migrate(config.DATABASE_URL, root);
  if (applied.length > 0) log.info(`database: applied ${applied.length} migration(s): ${applied.join(", ")}`);

  const server = http.createServer();
  // Listen before Next prepares so that a busy port is reported at once, not after the build loads.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.PORT, config.HOST, () => {
      server.off("error", reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE") fail(`port ${config.PORT} on ${config.HOST} is in use: stop what uses it or set PORT to a free port`);
    if (error.code === "EADDRNOTAVAIL") fail(`HOST ${config.HOST} is not an address of this machine: set HOST (default 127.0.0.1)`);
    if (error.code === "EACCES") fail(`port ${config.PORT} needs privileges: set PORT to 1024 or above`);
    throw error;
  });

  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  const app = next({ dev, dir: root, hostname: config.HOST, port });
  const ready = app.prepare().then(() => ({ handle: app.getRequestHandler(), upgrade: app.getUpgradeHandler() }));
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });

  server.on("request", (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (!isAuthorized(req, config.SPROUT_TOKEN)) {
      const api = url.pathname.startsWith("/api/");
      res.writeHead(401, { "content-type": api ? "application/json" : "text/plain; charset=utf-8" });
      res.end(api ? JSON.stringify({ error: "missing or wrong token" }) : "SPROUT Workbench: open this page with ?token=<SPROUT_TOKEN>\n");
      return;
    }
    // A token given in the address becomes a cookie, and the address loses it.
    if (config.SPROUT_TOKEN && url.searchParams.has("token") && req.method === "GET" && !url.pathname.startsWith("/api/")) {
      url.searchParams.delete("token");
      res.writeHead(303, {
        location: url.pathname + url.search,
        "set-cookie": `${TOKEN_COOKIE}=${encodeURIComponent(presentedToken(req) ?? "")}; Path=/; HttpOnly; SameSite=Strict`,
      });
      res.end();
      return;
    }
    ready.then(({ handle }) => handle(req, res)).catch((error: unknown) => {
      log.error("request failed", { url: req.url, error: String(error) });
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (!isAllowedOrigin(req, config.SPROUT_ALLOWED_ORIGINS)) return refuseUpgrade(socket, 403, "Forbidden");
    if (!isAuthorized(req, config.SPROUT_TOKEN)) return refuseUpgrade(socket, 401, "Unauthorized");
    const route = findWsRoute(url.pathname);
    if (route) {
      wss.handleUpgrade(req, socket, head, (ws) => route(ws, req, url));
      return;
    }
    // Next's own upgrades (hot reload in development).
    ready.then(({ upgrade }) => upgrade(req, socket, head)).catch(() => socket.destroy());
  });

  await ready;
  // The driver's init removes leftovers of an earlier process (mounts, containers, half-written layers).
  sandboxDriver().catch((error: unknown) => log.warn(`sandbox driver ${config.SPROUT_DRIVER} is not available: ${error instanceof Error ? error.message : String(error)}`));
  const recovered = await recoverAfterRestart();
  if (recovered.interrupted > 0 || recovered.resumed > 0) log.info(`after restart: ${recovered.interrupted} rollout(s) marked interrupted, ${recovered.resumed} experiment(s) resumed`);
  const shown = isLoopbackHost(config.HOST) && config.HOST !== "::1" ? "127.0.0.1" : config.HOST;
  const database = config.databaseKind === "sqlite" ? `SQLite ${config.DATABASE_URL.replace(/^file:/, "")}` : "PostgreSQL";
  process.stdout.write(`SPROUT Workbench is running at http://${shown}:${port}  (${database}${dev ? ", development" : ""})\n`);

  const stop = () => {
    server.close();
    wss.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) fail(error.message);
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
});
