import { route } from "@/server/http/route";
import { eventStream } from "@/server/runtime/event-stream";

export const dynamic = "force-dynamic";

export const GET = route((req) =>
  Promise.resolve(new Response(eventStream(req.signal), { headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" } })),
);
