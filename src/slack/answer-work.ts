import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Posts answers a few at a time, each after a turn of the event loop, so that commands arriving
 * meanwhile are acknowledged first. When one controller read releases hundreds of waiting
 * commands at once, their answers would otherwise be sent back to back while the acks of new
 * commands wait behind them (an ack never waits for answer work).
 */
export class AnswerQueue {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  /** `concurrency`: answers in flight at once [8]. */
  constructor(private readonly concurrency = 8) {}

  /** Runs `send` when a slot is free and the event loop has had a turn (its I/O: new commands). */
  async post<T>(send: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      await nextTurn();
      return await send();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    // The slot passes straight to the next waiting answer, if any.
    const next = this.waiting.shift();
    if (next) next();
    else this.active -= 1;
  }
}

/**
 * Work that identical requests share while it runs: the first starts it, the others get the same
 * promise (its value or its error). Nothing is kept once it settles, so a later request runs again
 * and sees whatever the gateway's cache and the controller say then.
 */
export class SharedWork<T> {
  private readonly running = new Map<string, Promise<T>>();

  run(key: string, work: () => Promise<T>): Promise<T> {
    const current = this.running.get(key);
    if (current) return current;
    const promise = Promise.resolve().then(work);
    this.running.set(key, promise);
    const done = () => {
      if (this.running.get(key) === promise) this.running.delete(key);
    };
    promise.then(done, done);
    return promise;
  }
}
