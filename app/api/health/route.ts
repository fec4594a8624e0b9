import { route } from "@/server/http/route";

export const GET = route(() => Promise.resolve({ ok: true }));
