import { invalidArgument } from "../../shared/errors.js";

/** The deepest nesting of arrays and objects a JSON body may have (contract 19). */
export const MAX_JSON_DEPTH = 64;

/** The bytes of JSON's structure, which UTF-8 never puts inside a multi-byte character. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;

/**
 * Follows the nesting of JSON text as its bytes arrive, without parsing it, so that a body
 * nested too deeply is refused at its first excess bracket, before it is all read and before
 * anything recursive sees it. Brackets inside strings do not count; UTF-8 never puts these
 * ASCII bytes inside a multi-byte character. Malformed text is left to the parser.
 */
export class JsonDepthGuard {
	private depth = 0;
	private inString = false;
	private escaped = false;

	constructor(private readonly max = MAX_JSON_DEPTH) {}

	/** Takes the next bytes of the text; INVALID_ARGUMENT as soon as the nesting passes the limit. */
	feed(chunk: Buffer): void {
		// Where the next quote and backslash are (the chunk's length: none); each is looked up
		// again only once passed, so a chunk is scanned in linear time.
		let quoteAt = -1;
		let backslashAt = -1;
		const find = (byte: number, from: number) => {
			const at = chunk.indexOf(byte, from);
			return at === -1 ? chunk.length : at;
		};
		let i = 0;
		while (i < chunk.length) {
			if (this.escaped) {
				this.escaped = false;
				i++;
			} else if (this.inString) {
				if (quoteAt < i) quoteAt = find(QUOTE, i);
				if (backslashAt < i) backslashAt = find(BACKSLASH, i);
				if (backslashAt < quoteAt) {
					this.escaped = true;
					i = backslashAt + 1;
				} else {
					this.inString = quoteAt === chunk.length;
					i = quoteAt + 1;
				}
			} else {
				const byte = chunk[i++];
				if (byte === QUOTE) this.inString = true;
				else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
					if (++this.depth > this.max) throw invalidArgument(`request body is nested deeper than ${this.max} levels`);
				} else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) this.depth--;
			}
		}
	}
}
