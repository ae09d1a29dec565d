/**
 * One save at a time per options section, and always the latest state. A toggle pressed twice
 * within a few milliseconds (a double click, Space pressed twice) asks for two saves; sent side
 * by side they raced, and the second, seeing the field back at its stored value, was skipped
 * while the first was still storing the opposite. Here a request made while a save runs waits,
 * and several such requests collapse into one: the newest. `request` resolves once the section
 * has nothing left to save, so `await form.commit()` means "stored".
 */
export type SaveTask = () => Promise<void>;

export interface SaveQueue {
  request(task: SaveTask): Promise<void>;
  /** A save is running or waiting. */
  readonly busy: boolean;
}

export function createSaveQueue(): SaveQueue {
  let running: Promise<void> | null = null;
  let waiting: SaveTask | null = null;

  async function drain(first: SaveTask): Promise<void> {
    let next: SaveTask | null = first;
    try {
      while (next) {
        waiting = null;
        // A task reports its own failure (the section's status line); the queue goes on, so a
        // later change is still saved after an earlier one failed.
        await next().catch(() => undefined);
        next = waiting;
      }
    } finally {
      running = null;
    }
  }

  return {
    request(task: SaveTask): Promise<void> {
      if (running) {
        waiting = task;
        return running;
      }
      running = drain(task);
      return running;
    },
    get busy() {
      return running !== null;
    },
  };
}
