import { route } from "@/server/http/route";
import { listTasks } from "@/server/tasks/task-store";

export const GET = route(() => listTasks());
