/**
 * The JSON text of deep-frozen objects, within one process: a service that keeps a response (the
 * ListMemos cache) notes its text once, and the gateway, which in the embedded app gets the very
 * object back from the call, sends that text instead of encoding the object again. Only frozen
 * objects are noted, so the text cannot fall out of step with the object.
 */
const texts = new WeakMap<object, string>();

/** Notes `text` as the JSON of `value`, which the caller has deep-frozen. */
export function noteJsonText(value: object, text: string): void {
	if (!Object.isFrozen(value)) throw new Error("only a frozen object's JSON text can be kept");
	texts.set(value, text);
}

/** `JSON.stringify(value)`, or the text noted for it. */
export function jsonText(value: unknown): string {
	return (typeof value === "object" && value !== null ? texts.get(value) : undefined) ?? JSON.stringify(value);
}

/** `value` and everything it holds, frozen: what noteJsonText asks of an object before its text is kept. */
export function deepFreeze<T>(value: T): T {
	if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
	for (const item of Object.values(value)) deepFreeze(item);
	return Object.freeze(value);
}
