/**
 * The JSON encoding of deep-frozen objects, within one process: a service that keeps a response
 * (the ListMemos cache, the instance profile) notes its encoding once, and the gateway, which in
 * the embedded app gets the very object back from the call, sends that instead of encoding the
 * object again. Only frozen objects are noted, so the encoding cannot fall out of step with the object.
 */
const encodings = new WeakMap<object, string | Buffer>();

/**
 * Notes `json` as the JSON of `value`, which the caller has deep-frozen: as text, or as its UTF-8
 * bytes, which a large body is better sent as (Node measures and encodes a string body again at
 * every write, after copying it behind the headers).
 */
export function noteJson(value: object, json: string | Buffer): void {
	if (!Object.isFrozen(value)) throw new Error("only a frozen object's JSON can be kept");
	encodings.set(value, json);
}

/** `JSON.stringify(value)`, or the encoding noted for it. */
export function jsonBody(value: unknown): string | Buffer {
	return (typeof value === "object" && value !== null ? encodings.get(value) : undefined) ?? JSON.stringify(value);
}

/** `value` and everything it holds, frozen: what noteJson asks of an object before its encoding is kept. */
export function deepFreeze<T>(value: T): T {
	if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
	for (const item of Object.values(value)) deepFreeze(item);
	return Object.freeze(value);
}
