/**
 * The page position of the lists ordered by creation (reactions, relations): `t` the
 * createTime of the last item served, `k` its key. A page token is client input, so a decoded
 * position is checked for this shape before use.
 */
export interface TimePosition {
	t: number;
	k: string;
}

export function isTimePosition(value: unknown): value is TimePosition {
	if (value === null || typeof value !== "object") return false;
	const { t, k } = value as Record<string, unknown>;
	return typeof t === "number" && Number.isFinite(t) && typeof k === "string" && Object.keys(value).length === 2;
}
