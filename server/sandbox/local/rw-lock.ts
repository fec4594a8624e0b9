/** Many shared holders (exec, file access) or one exclusive holder (checkpoint, destroy), FIFO. */
export class RwLock {
  private shared = 0;
  private exclusive = false;
  private readonly queue: { exclusive: boolean; wake: () => void }[] = [];

  async withShared<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(false);
    try {
      return await fn();
    } finally {
      this.release(false);
    }
  }

  async withExclusive<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(true);
    try {
      return await fn();
    } finally {
      this.release(true);
    }
  }

  private canRun(exclusive: boolean): boolean {
    return exclusive ? !this.exclusive && this.shared === 0 : !this.exclusive;
  }

  private acquire(exclusive: boolean): Promise<void> {
    if (this.queue.length === 0 && this.canRun(exclusive)) {
      this.take(exclusive);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push({ exclusive, wake: resolve }));
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.exclusive = true;
    else this.shared++;
  }

  private release(exclusive: boolean): void {
    if (exclusive) this.exclusive = false;
    else this.shared--;
    while (this.queue.length > 0) {
      const next = this.queue[0];
      if (!next || !this.canRun(next.exclusive)) break;
      this.queue.shift();
      this.take(next.exclusive);
      next.wake();
    }
  }
}
