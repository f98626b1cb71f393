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
  /** Reports progress in [0, 1], with an optional detail shown after the percentage ("1.2 GiB of 2.4 GiB"). */
  update(progress: number, detail?: string): void;
  /** Ends the display (clears the bar's line on a terminal). */
  done(): void;
}

/** Plain output prints a line each time progress crosses one of these steps. */
const PLAIN_STEP = 0.25;
const BAR_WIDTH = 30;
const REDRAW_MS = 100;

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
  let lastLine = "";
  let lastDraw = Number.NEGATIVE_INFINITY;
  return {
    update(progress: number, detail?: string) {
      const p = Math.max(0, Math.min(1, Number.isFinite(progress) ? progress : 0));
      const percent = `${Math.round(p * 100)}%`.padStart(4);
      const extra = detail ? ` ${detail}` : "";
      if (tty) {
        const filled = Math.round(p * BAR_WIDTH);
        const line = `\r${label} [${"#".repeat(filled)}${" ".repeat(BAR_WIDTH - filled)}] ${percent}${extra}\x1b[K`;
        // A download reports every chunk: redraw when the line changes, a few times a second.
        const now = performance.now();
        if (line === lastLine || (p < 1 && now - lastDraw < REDRAW_MS)) return;
        lastLine = line;
        lastDraw = now;
        stream.write(line);
        drawn = true;
        return;
      }
      const step = Math.floor(p / PLAIN_STEP);
      if (step > lastPlainStep) {
        lastPlainStep = step;
        stream.write(`${label}: ${percent.trim()}${extra}\n`);
      }
    },
    done() {
      // Erase the bar so the conversation starts on a clean line.
      if (tty && drawn) stream.write("\r\x1b[2K");
      drawn = false;
      lastLine = "";
      lastDraw = Number.NEGATIVE_INFINITY;
    },
  };
}

/**
 * A byte count for people: "512 B", "3.40 MiB", "1.2 GiB".
 *
 * @example
 * formatBytes(1536); // "1.50 KiB"
 */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = n / 1024;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[i]}`;
}
