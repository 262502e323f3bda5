import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from "./json-depth.js";

const COLON = 0x3a;
const COMMA = 0x2c;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const DELIMITERS = new Set([...WHITESPACE, COMMA, CLOSE_ARRAY, CLOSE_OBJECT]);

/** The bytes between a string's quotes: `start` is its first character, `end` its closing quote. */
export interface StringSpan {
	start: number;
	end: number;
}

/** Thrown inside the scan when the text is not as expected; the scan then answers undefined. */
class NotFound extends Error {}

/**
 * Walks JSON text as bytes, as far as finding one string value needs: strings are skipped by
 * searching for their closing quote (memchr speed over megabytes), nothing is decoded.
 */
class Scanner {
	at = 0;

	constructor(private readonly text: Uint8Array) {}

	skipWhitespace(): void {
		while (this.at < this.text.length && WHITESPACE.has(this.text[this.at] as number)) this.at++;
	}

	expect(byte: number): void {
		this.skipWhitespace();
		if (this.text[this.at] !== byte) throw new NotFound();
		this.at++;
	}

	peek(): number | undefined {
		this.skipWhitespace();
		return this.text[this.at];
	}

	/** The string starting here (at its opening quote); the scan goes on after its closing quote. */
	string(): StringSpan & { escaped: boolean } {
		this.expect(QUOTE);
		const start = this.at;
		let end = this.text.indexOf(QUOTE, start);
		// A quote after an odd run of backslashes is a character of the string.
		while (end !== -1 && backslashesBefore(this.text, end, start) % 2 === 1) end = this.text.indexOf(QUOTE, end + 1);
		if (end === -1) throw new NotFound();
		this.at = end + 1;
		return { start, end, escaped: this.text.subarray(start, end).includes(BACKSLASH) };
	}

	/** An object key, decoded (JSON.parse for the rare escaped one). */
	key(): string {
		const { start, end, escaped } = this.string();
		const raw = Buffer.from(this.text.buffer, this.text.byteOffset + start - 1, end - start + 2).toString("latin1");
		return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
	}

	/** Steps over any value: strings by their quotes, containers by counting brackets outside strings. */
	skipValue(): void {
		let depth = 0;
		do {
			const byte = this.peek();
			if (byte === undefined) throw new NotFound();
			if (byte === QUOTE) this.string();
			else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
				depth++;
				this.at++;
			} else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
				depth--;
				this.at++;
			} else if (depth > 0) this.at++;
			// A number or literal: up to the next delimiter.
			else while (this.at < this.text.length && !DELIMITERS.has(this.text[this.at] as number)) this.at++;
		} while (depth > 0);
	}

	/**
	 * The object starting here, looking for `path` in it: the span of the string at its end, or
	 * undefined when absent. A key of the path twice in one object: JSON.parse keeps the last,
	 * which a scan that goes on past the first cannot follow cheaply, so NotFound.
	 */
	object(path: readonly string[]): StringSpan | undefined {
		this.expect(OPEN_OBJECT);
		let found: StringSpan | undefined;
		let seen = false;
		if (this.peek() === CLOSE_OBJECT) {
			this.at++;
			return undefined;
		}
		for (;;) {
			const key = this.key();
			this.expect(COLON);
			if (key === path[0]) {
				if (seen) throw new NotFound();
				seen = true;
				const next = this.peek();
				if (path.length === 1 && next === QUOTE) {
					const value = this.string();
					if (value.escaped) throw new NotFound();
					found = value;
				} else if (path.length > 1 && next === OPEN_OBJECT) found = this.object(path.slice(1));
				else this.skipValue();
			} else this.skipValue();
			const separator = this.peek();
			this.at++;
			if (separator === CLOSE_OBJECT) return found;
			if (separator !== COMMA) throw new NotFound();
		}
	}
}

function backslashesBefore(text: Uint8Array, at: number, from: number): number {
	let count = 0;
	while (at - count - 1 >= from && text[at - count - 1] === BACKSLASH) count++;
	return count;
}

/**
 * Where the string value at `path` (keys of nested objects, from the top-level object) lies in
 * the JSON text `text`, when it holds no escape; undefined when it is absent, escaped, not a
 * string, or the text is not such JSON (the parser then says what is wrong with it).
 */
export function stringSpanAt(text: Uint8Array, path: readonly string[]): StringSpan | undefined {
	if (path.length === 0) return undefined;
	const scanner = new Scanner(text);
	try {
		const span = scanner.object(path);
		scanner.skipWhitespace();
		return scanner.at === text.length ? span : undefined;
	} catch (err) {
		if (err instanceof NotFound || err instanceof SyntaxError) return undefined;
		throw err;
	}
}
