/**
 * A load-progress reporter for the CLI: a redrawn bar on a terminal, a few plain percentage lines
 * elsewhere (logs and pipes get no carriage returns).
 *
 * @example
 * const progress = createProgressReporter(process.stderr, "loading model.gguf");
 * await loadModel("model.gguf", { onProgress: progress.update });
 * progress.done();
 */

/** Something that can be written to, and may be a terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressReporter {
  /** Reports progress in [0, 1]. */
  update(progress: number): void;
  /** Ends the display (clears the bar's line on a terminal). */
  done(): void;
}

/** Plain output prints a line each time progress crosses one of these steps. */
const PLAIN_STEP = 0.25;
const BAR_WIDTH = 30;

/**
 * Makes a reporter that writes to `stream`, labelled `label`.
 *
 * @example
 * const p = createProgressReporter(process.stderr, "loading");
 * p.update(0.5); // "loading [###############               ]  50%" on a terminal
 * p.done();
 */
export function createProgressReporter(stream: ProgressStream, label: string): ProgressReporter {
  const tty = stream.isTTY === true;
  let lastPlainStep = -1;
  let drawn = false;
  return {
    update(progress: number) {
      const p = Math.max(0, Math.min(1, Number.isFinite(progress) ? progress : 0));
      const percent = `${Math.round(p * 100)}%`.padStart(4);
      if (tty) {
        const filled = Math.round(p * BAR_WIDTH);
        stream.write(`\r${label} [${"#".repeat(filled)}${" ".repeat(BAR_WIDTH - filled)}] ${percent}`);
        drawn = true;
        return;
      }
      const step = Math.floor(p / PLAIN_STEP);
      if (step > lastPlainStep) {
        lastPlainStep = step;
        stream.write(`${label}: ${percent.trim()}\n`);
      }
    },
    done() {
      // Erase the bar so the conversation starts on a clean line.
      if (tty && drawn) stream.write("\r\x1b[2K");
      drawn = false;
    },
  };
}
