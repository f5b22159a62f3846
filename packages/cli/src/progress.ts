/**
 * Progress on stderr: a bar redrawn in place on a terminal, plain lines (at most one per tenth)
 * without one, as in CI logs. Hand-made: a dozen lines, not worth a dependency
 * (docs/dependencies.md).
 */
export class Progress {
  readonly #tty: boolean;
  #lastTenth = -1;
  #lastDraw = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {
    this.#tty = Boolean(out.isTTY);
  }

  update(done: number): void {
    if (this.total === 0) return;
    const ratio = Math.min(1, done / this.total);
    if (this.#tty) {
      const t = Date.now();
      if (done < this.total && t - this.#lastDraw < 80) return;
      this.#lastDraw = t;
      const width = 30;
      const filled = Math.round(ratio * width);
      this.out.write(
        `\r${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${done}/${this.total}`,
      );
      if (done >= this.total) this.out.write('\n');
      return;
    }
    const tenth = Math.floor(ratio * 10);
    if (tenth !== this.#lastTenth) {
      this.#lastTenth = tenth;
      this.out.write(`${this.label} ${done}/${this.total} (${tenth * 10}%)\n`);
    }
  }
}
