import { z } from "zod";
import { env } from "../config/env";
import { SandboxError, CheckpointNotFoundError } from "../sandbox/errors";
import { isAuthorized } from "./auth";
import { log } from "../runtime/log";

/** A request that names something that does not exist. */
export class NotFoundError extends Error {
  override name = "NotFoundError";
}

/** A request body that is not JSON. */
export class BadRequestError extends Error {
  override name = "BadRequestError";
}

/** A request that is valid but cannot be carried out in the current state. */
export class ConflictError extends Error {
  override name = "ConflictError";
}

function statusOf(error: unknown): number {
  if (error instanceof z.ZodError || error instanceof BadRequestError) return 400;
  if (error instanceof NotFoundError || error instanceof CheckpointNotFoundError) return 404;
  if (error instanceof ConflictError) return 409;
  if (error instanceof SandboxError) return 503;
  return 500;
}

function messageOf(error: unknown): string {
  if (error instanceof z.ZodError) {
    return error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
  }
  return error instanceof Error ? error.message : String(error);
}

type Handler<C> = (req: Request, context: C) => Promise<unknown>;

/**
 * Wraps a route handler: checks the token (again, so that a handler is safe even
 * when served without the custom server), turns the result into JSON and domain
 * errors into statuses. Handlers stay a parse and one call into server/.
 */
export function route<C>(handler: Handler<C>): (req: Request, context: C) => Promise<Response> {
  return async (req, context) => {
    const headers = Object.fromEntries(req.headers.entries());
    if (!isAuthorized({ headers, url: req.url }, env().SPROUT_TOKEN)) {
      return Response.json({ error: "missing or wrong token" }, { status: 401 });
    }
    try {
      const result = await handler(req, context);
      return result instanceof Response ? result : Response.json(result);
    } catch (error) {
      const status = statusOf(error);
      if (status === 500) log.error("route failed", { url: req.url, error: error instanceof Error ? error.stack : String(error) });
      return Response.json({ error: messageOf(error) }, { status });
    }
  };
}

/** Parse a dynamic route's params (Next 16 passes them as a promise). */
export async function params<T extends z.ZodType>(context: { params: Promise<unknown> }, schema: T): Promise<z.infer<T>> {
  return schema.parse(await context.params);
}

/** The request's JSON body (an empty body is `{}`), for a domain function to parse with zod. */
export async function jsonBody(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequestError("the request body is not valid JSON");
  }
}
