/** A monotonically increasing integer id sequence (ids are never reused, even after deletes). */
export class IdSequence {
  constructor(private last = 0) {}
  next(): number {
    return ++this.last;
  }
  /** Makes sure later ids are above `id` (after loading records that carry ids). */
  observe(id: number): void {
    if (id > this.last) this.last = id;
  }
  get current(): number {
    return this.last;
  }
  /** The last id handed out (the state of the sequence). */
  toJSON(): number {
    return this.last;
  }
  static fromJSON(last: number): IdSequence {
    return new IdSequence(last);
  }
}
