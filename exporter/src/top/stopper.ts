// How a `jobio top` loop waits and stops: an interval sleep that a stop (SIGINT, the caller's abort
// signal, a key) or a wake-up (a key that changes the view) cuts short.
export class Stopper {
  private stoppedFlag = false;
  private wakeUp: (() => void) | undefined;

  /** A method, not a getter: it is read again after every await (TypeScript would narrow a property). */
  isStopped(): boolean {
    return this.stoppedFlag;
  }

  stop = (): void => {
    this.stoppedFlag = true;
    this.wakeUp?.();
  };

  /** Ends the current sleep early without stopping. */
  wake(): void {
    this.wakeUp?.();
  }

  sleep(ms: number): Promise<void> {
    if (this.stoppedFlag) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }
}
