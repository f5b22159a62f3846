/**
 * Serialises "store blobs + commit rows" against "find unreferenced blobs + delete them" in this
 * process, so a delete never removes a blob that an upload is about to reference.
 */
export class BlobGate {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work, work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
