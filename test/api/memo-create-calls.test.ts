import { usePopulatedApp } from "../support/populated-app.js";

/**
 * CreateMemo asks other services only what it cannot know (issue 15): the attachments service
 * at most twice (check, then link), the auth service never for the caller's own name.
 * Counted with Moleculer's own request counter, so the app runs with metrics on.
 */
const { app, api, users: [alice] } = usePopulatedApp(1, { METRICS_ENABLED: "true", METRICS_PORT: "0" });

/** Calls of `action` served so far, by Moleculer's `moleculer.request.total`. */
function callsOf(action: string): number {
	const metric = app().node.broker.metrics.getMetric("moleculer.request.total");
	if (metric?.type !== "counter") throw new Error("moleculer.request.total is not a registered counter");
	const items = (metric as { snapshot(): { labels: Record<string, unknown>; value: number }[] }).snapshot();
	return items.filter(item => item.labels.action === action).reduce((sum, item) => sum + item.value, 0);
}

function counts(): Record<string, number> {
	return Object.fromEntries(["attachments.linkForMemo", "attachments.forMemos", "auth.lookupUsers"].map(action => [action, callsOf(action)]));
}

function delta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
	return Object.fromEntries(Object.entries(after).map(([action, n]) => [action, n - (before[action] ?? 0)]));
}

test("CreateMemo without attachments calls neither the attachments service nor auth", async () => {
	const before = counts();
	const res = await api.create(alice(), { content: "no attachments #calls" });
	expect(res.status).toBe(200);
	expect(res.body).toMatchObject({ creator: "users/user1", attachments: [] });
	expect(delta(before, counts())).toEqual({ "attachments.linkForMemo": 0, "attachments.forMemos": 0, "auth.lookupUsers": 0 });
});

test("CreateMemo with attachments calls the attachments service twice and answers them in the given order", async () => {
	const names: string[] = [];
	for (const filename of ["a.txt", "b.txt"]) {
		const res = await api.request<{ name: string }>("POST", "/attachments", { as: alice(), body: { filename, content: "aGVsbG8=" } });
		expect(res.status).toBe(200);
		names.push(res.body.name);
	}
	const before = counts();
	const res = await api.create(alice(), { content: "two files", attachments: [names[1], names[0]].map(name => ({ name })) });
	expect(res.status).toBe(200);
	expect((res.body.attachments as { name: string }[]).map(a => a.name)).toEqual([names[1], names[0]]);
	expect(delta(before, counts())).toEqual({ "attachments.linkForMemo": 2, "attachments.forMemos": 0, "auth.lookupUsers": 0 });
	// What a later read shows is what CreateMemo answered.
	expect((await api.get(alice(), res.body.name)).body.attachments).toEqual(res.body.attachments);
});
