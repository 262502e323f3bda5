/**
 * A checked filter: the predicates `P` of one filter language (memo fields, attachment fields,
 * the element of `tags.exists`) under the connectives every language shares.
 */
export type Condition<P> = Connective<P> | P;

export type Connective<P> =
	| { kind: "const"; value: boolean }
	| { kind: "and" | "or"; items: Condition<P>[] }
	| { kind: "not"; item: Condition<P> };

const CONNECTIVE_KINDS: ReadonlySet<string> = new Set(["const", "and", "or", "not"]);

/** Predicates never use the connectives' kinds, so the kind tells them apart. */
export function isConnective<P extends { kind: string }>(condition: Condition<P>): condition is Connective<P> {
	return CONNECTIVE_KINDS.has(condition.kind);
}

/** `item`, under a `not` when `negate` holds. */
export function negated<P>(item: Condition<P>, negate: boolean): Condition<P> {
	return negate ? { kind: "not", item } : item;
}
