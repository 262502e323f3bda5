/**
 * Buffers for large request bodies and the bytes decoded from them (a chunk of a JSON chunked
 * upload), taken back once nothing reads them any more and handed to the next body. Each fresh
 * buffer of megabytes counts towards V8's external-memory limit, whose crossing starts a full
 * collection of the whole heap whether or not the buffer is still held: a new 4 MiB buffer per
 * chunk cost a full collection every second chunk, the larger part of the upload's CPU (issue 19).
 */
export class ReusedBuffers {
	private readonly free: Buffer[] = [];
	/** Buffers handed out and not yet taken back, by their memory: only they are ever kept. */
	private readonly lent = new WeakMap<ArrayBufferLike, Buffer>();

	/** `size`: the capacity of each buffer kept; `keep`: how many idle ones are kept at most. */
	constructor(
		readonly size: number,
		private readonly keep: number
	) {}

	/** `length` bytes, of a kept buffer when they fit in one, else of a buffer of their own. */
	take(length: number): Buffer {
		if (length > this.size) return Buffer.allocUnsafeSlow(length);
		const buffer = this.free.pop() ?? Buffer.allocUnsafeSlow(this.size);
		this.lent.set(buffer.buffer, buffer);
		return buffer.subarray(0, length);
	}

	/**
	 * Takes back bytes that `take` gave once nothing reads or writes them any more; any other
	 * buffer is left to the garbage collector, and so is one given back twice.
	 */
	give(bytes: Buffer): void {
		const buffer = this.lent.get(bytes.buffer);
		if (buffer === undefined) return;
		this.lent.delete(bytes.buffer);
		if (this.free.length < this.keep) this.free.push(buffer);
	}
}
