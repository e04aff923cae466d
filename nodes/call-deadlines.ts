/** A running call that is stopped when its deadline (a `performance.now()` time) has passed. */
export interface Expiring {
  readonly deadline: number;
  expire(): void;
}

// The longest delay setTimeout takes (it fires a longer one at once); a later deadline is re-armed for when it comes.
const MAX_DELAY_MS = 2 ** 31 - 1;

// The timer's callback, handed its Deadlines by setTimeout: no closure per arming.
function fire(deadlines: CallDeadlines): void {
  deadlines.fire();
}

/**
 * The deadlines of every running call on one timer, armed for the earliest: a
 * timer per call (made, inserted and cleared on every call) cost more than the
 * rest of a fast tool's call. Like a call's own timer, it holds the process
 * open only while some call waits.
 */
export class CallDeadlines {
  private readonly waiting = new Set<Expiring>();
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;

  add(call: Expiring): void {
    this.waiting.add(call);
    if (call.deadline < this.armedFor) this.arm(call.deadline);
    else if (this.waiting.size === 1) this.timer?.ref();
  }

  delete(call: Expiring): void {
    if (this.waiting.delete(call) && this.waiting.size === 0) this.timer?.unref();
  }

  /** Stop every call whose time is up, then wait for the next deadline. */
  fire(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const call of this.waiting) {
      if (call.deadline > now) {
        next = Math.min(next, call.deadline);
        continue;
      }
      this.waiting.delete(call);
      call.expire();
    }
    if (next < Infinity) this.arm(next);
  }

  private arm(deadline: number): void {
    clearTimeout(this.timer);
    this.armedFor = deadline;
    this.timer = setTimeout(fire, Math.min(MAX_DELAY_MS, Math.max(0, deadline - performance.now())), this);
  }
}
