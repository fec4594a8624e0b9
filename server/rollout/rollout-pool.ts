import type { RolloutId } from "../db/ids";
import { runRollout, type RolloutSummary, type RunRolloutOptions } from "./run-rollout";

/**
 * Runs rollouts with at most `concurrency` at once; each can be cancelled. A
 * cancelled rollout stops before its next turn and is marked cancelled; its
 * persisted turns stay.
 */
export class RolloutPool {
  private running = 0;
  private readonly queue: (() => void)[] = [];
  private readonly controllers = new Map<RolloutId, AbortController>();

  constructor(
    private readonly concurrency: number,
    private readonly options: Omit<RunRolloutOptions, "signal">,
  ) {}

  run(id: RolloutId, overrides: Partial<Omit<RunRolloutOptions, "signal">> = {}): Promise<RolloutSummary> {
    const controller = new AbortController();
    this.controllers.set(id, controller);
    return new Promise<RolloutSummary>((resolve, reject) => {
      const start = () => {
        this.running += 1;
        runRollout(id, { ...this.options, ...overrides, signal: controller.signal })
          .then(resolve, reject)
          .finally(() => {
            this.running -= 1;
            this.controllers.delete(id);
            this.queue.shift()?.();
          });
      };
      if (this.running < this.concurrency) start();
      else this.queue.push(start);
    });
  }

  cancel(id: RolloutId): boolean {
    const c = this.controllers.get(id);
    c?.abort(new Error("cancelled"));
    return c !== undefined;
  }

  cancelAll(): void {
    for (const c of this.controllers.values()) c.abort(new Error("cancelled"));
  }

  get active(): number {
    return this.running;
  }
}
