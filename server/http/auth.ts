import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const TOKEN_COOKIE = "sprout_token";

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The token a request carries: `Authorization: Bearer`, the `sprout_token` cookie, or `?token=`. */
export function presentedToken(req: Pick<IncomingMessage, "headers" | "url">): string | null {
  const auth = req.headers.authorization;
  if (auth?.startsWith("Bearer ")) return auth.slice(7).trim();
  const cookie = req.headers.cookie
    ?.split(";")
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${TOKEN_COOKIE}=`));
  if (cookie) return decodeURIComponent(cookie.slice(TOKEN_COOKIE.length + 1));
  const query = new URL(req.url ?? "/", "http://x").searchParams.get("token");
  return query;
}

/** True when no token is configured, or the request carries the right one. */
export function isAuthorized(req: Pick<IncomingMessage, "headers" | "url">, token: string | undefined): boolean {
  if (!token) return true;
  const presented = presentedToken(req);
  return presented !== null && same(presented, token);
}

/**
 * WebSocket upgrades must come from this server's own pages (or an origin listed in
 * SPROUT_ALLOWED_ORIGINS): a page on another site must not reach a shell here.
 * Non-browser clients send no Origin and are judged by the token alone.
 */
export function isAllowedOrigin(req: Pick<IncomingMessage, "headers">, allowed: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (host !== undefined && parsed.host === host) return true;
  return allowed.includes(origin);
}
