// A wait that ends at the next signal or after a timeout, whichever comes first: `jobio run` waits
// this way for the receiver's next event while it drains, instead of sleeping a fixed time.
export class Wakeup {
  private wake: (() => void) | undefined;

  /** Ends the current wait, if any. */
  signal(): void {
    this.wake?.();
  }

  /** Resolves at the next signal() or after timeoutMs. */
  next(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.wake = done;
    });
  }
}
